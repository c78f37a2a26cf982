package io.paimongov.nativehost;

import java.util.ArrayList;
import java.util.List;

/**
 * What a {@code pg_host} says of itself, read once when it attaches: its ABI version and struct
 * size, its timing settings and which callbacks it set. Immutable.
 *
 * @param abiVersion {@code abi_version}
 * @param structSize {@code struct_size}
 * @param callbackTimeoutMillis how long a callback may take ({@code callback_timeout_ms}, 0 read as {@value
 *     #DEFAULT_TIMEOUT_MS}); {@value #NO_TIMEOUT} for {@code PG_NO_TIMEOUT}: called directly, unbounded
 * @param cancelPollMillis how often {@code is_cancelled} is polled ({@code cancel_poll_ms}, 0 read as {@value #DEFAULT_POLL_MS})
 * @param callbacks the callbacks set, as {@link #TRY_RESERVE} and the other bits
 */
record HostDescription(int abiVersion, long structSize, long callbackTimeoutMillis, long cancelPollMillis, int callbacks) {

    static final long DEFAULT_TIMEOUT_MS = 10_000;
    static final long DEFAULT_POLL_MS = 10;
    static final long NO_TIMEOUT = -1;
    private static final long PG_NO_TIMEOUT = 0xFFFFFFFFL;

    static final int TRY_RESERVE = 1;
    static final int RELEASE = 2;
    static final int IS_CANCELLED = 4;
    static final int ON_METRICS = 8;
    static final int USED_BYTES = 16;
    static final int CANCEL = 32;
    static final int ON_DETACH = 64;

    /** No {@code pg_host} of any version is larger; a bigger size is a pointer to something else. */
    private static final long MAX_STRUCT_SIZE = 1 << 16;

    /**
     * Reads the host at {@code address} and checks that this provider can use it.
     *
     * @throws IllegalArgumentException naming the host and the field: a null address, an ABI version
     *     other than the provider's, a struct size too small or absurd, a required callback not set
     */
    static HostDescription read(String name, long address) {
        if (address == 0) {
            throw new IllegalArgumentException("the native host '" + name + "' is a NULL pg_host pointer");
        }
        long[] d = HostAbi.describe(address);
        int version = (int) d[0];
        if (version != HostAbi.headerAbiVersion()) {
            throw new IllegalArgumentException("the native host '" + name + "' states abi_version " + d[0] + "; this provider speaks "
                    + HostAbi.headerAbiVersion() + " (PG_ABI_VERSION of paimon_governance.h): rebuild the host against this header");
        }
        if (d[1] <= 0 || d[1] > MAX_STRUCT_SIZE) {
            throw new IllegalArgumentException("the native host '" + name + "' states struct_size " + d[1]
                    + ", which is no pg_host's: set it to sizeof(pg_host)");
        }
        long timeout = d[2] == 0 ? DEFAULT_TIMEOUT_MS : d[2] == PG_NO_TIMEOUT ? NO_TIMEOUT : d[2];
        HostDescription h = new HostDescription(version, d[1], timeout, d[3] == 0 ? DEFAULT_POLL_MS : d[3], (int) d[4]);
        List<String> missing = new ArrayList<>();
        if (!h.has(TRY_RESERVE)) {
            missing.add("try_reserve");
        }
        if (!h.has(RELEASE)) {
            missing.add("release");
        }
        if (!h.has(IS_CANCELLED)) {
            missing.add("is_cancelled");
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("the native host '" + name + "' does not set the required callback(s) " + missing
                    + " (or its struct_size " + d[1] + " ends before them)");
        }
        return h;
    }

    boolean has(int callback) {
        return (callbacks & callback) != 0;
    }
}
