package io.paimongov.nativehost;

/**
 * The JNI side of the provider (src/main/c/pg_jni.c): each method reads the {@code pg_host} at
 * {@code host} and calls one of its callbacks on the calling thread, or reads its fields. Nothing
 * here bounds a call or checks an answer; {@link HostCalls} does.
 *
 * <p>Stateless. Callers make sure the library is loaded ({@link NativeLibrary#require()}) and that
 * {@code host} is a live {@code pg_host} whose callback is set ({@link HostDescription}).
 */
final class HostAbi {

    static {
        NativeLibrary.require();
    }

    private HostAbi() {}

    /** {@code PG_ABI_VERSION} of the header the library was built with. */
    static native int headerAbiVersion();

    /** {@code sizeof(pg_host)} of the header the library was built with. */
    static native int hostStructSize();

    /**
     * A new host from a host library's {@code pg_host_open_fn} named {@code symbol} in {@code
     * library}, or from the reference host built into this library when {@code library} is null;
     * 0 when the function returned NULL.
     *
     * @throws IllegalArgumentException when the library or the symbol cannot be loaded (the message is dlerror's)
     */
    static native long open(String library, String symbol, long limitBytes, String args);

    /** {abi_version, struct_size, callback_timeout_ms, cancel_poll_ms, the callbacks set as a bit mask}. */
    static native long[] describe(long host);

    static native long tryReserve(long host, long bytes, int consumer);

    static native long release(long host, long bytes, int consumer);

    static native int isCancelled(long host);

    /** The host's own count, or -1 when it has no {@code used_bytes}. */
    static native long usedBytes(long host);

    /** The host's {@code cancel}'s answer, or -1 when it has none. */
    static native int cancel(long host, String reason);

    /** Calls {@code on_metrics} when set: {@code values} are {@code write_id} and the fields after it, in order. */
    static native void onMetrics(long host, long[] values, boolean finalReport);

    /** Calls {@code on_detach} when set. */
    static native void onDetach(long host);
}
