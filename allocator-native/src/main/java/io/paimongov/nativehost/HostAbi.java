package io.paimongov.nativehost;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the provider reaches a host's {@code pg_host}: each method reads the struct at {@code host}
 * and calls one of its callbacks on the calling thread, or reads its fields. Nothing here bounds a
 * call or checks an answer; {@link HostCalls} does.
 *
 * <p>Two implementations ({@link Abi}): on Java 22 and later the Foreign Function and Memory API
 * ({@code FfmAbi}, compiled by the build where a JDK 22 or later is found), which needs no library
 * of the project's for an attached host or a host library; else JNI ({@link JniAbi}), over the
 * provider's JNI library. {@value #ABI_PROPERTY} = {@code jni} or {@code ffm} forces one. Which one
 * runs: {@link #name()} (docs/native.md).
 *
 * <p>Stateless apart from the choice, made once; thread-safe. Callers make sure {@code host} is a
 * live {@code pg_host} whose callback is set ({@link HostDescription}).
 */
final class HostAbi {

    private static final Logger LOG = LoggerFactory.getLogger(HostAbi.class);

    /** Forces the implementation: {@code jni} or {@code ffm}; unset: FFM on Java 22+ where built, else JNI. */
    static final String ABI_PROPERTY = "paimon.governance.native.abi";

    /** The implementation's name and the reason when there is none. */
    private record Choice(Abi abi, String failure) {}

    private static final Choice CHOICE = choose();

    private HostAbi() {}

    /** What an implementation does; the static methods of {@link HostAbi} say what each means. */
    interface Abi {
        String name();

        int headerAbiVersion();

        int hostStructSize();

        long open(String library, String symbol, long limitBytes, String args);

        long[] describe(long host);

        long tryReserve(long host, long bytes, int consumer);

        long release(long host, long bytes, int consumer);

        int isCancelled(long host);

        long usedBytes(long host);

        int cancel(long host, String reason);

        void onMetrics(long host, long[] values, boolean finalReport);

        void onDetach(long host);
    }

    private static Choice choose() {
        String forced = System.getProperty(ABI_PROPERTY, "").strip();
        if (!forced.isEmpty() && !forced.equals("jni") && !forced.equals("ffm")) {
            return new Choice(null, "'" + ABI_PROPERTY + "' = '" + forced + "' must be 'jni' or 'ffm'");
        }
        if (!forced.equals("jni") && Runtime.version().feature() >= 22) {
            try {
                return new Choice((Abi) Class.forName("io.paimongov.nativehost.FfmAbi").getDeclaredConstructor().newInstance(), null);
            } catch (ClassNotFoundException notBuilt) {
                if (forced.equals("ffm")) {
                    return new Choice(null, "'" + ABI_PROPERTY + "' = 'ffm', but this allocator-native jar was built without a JDK 22"
                            + " or later, so it has no FFM implementation (docs/native.md)");
                }
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                if (forced.equals("ffm")) {
                    return new Choice(null, "the FFM implementation could not start: " + e);
                }
                LOG.warn("the FFM implementation could not start ({}); falling back to JNI", e.toString());
            }
        } else if (forced.equals("ffm")) {
            return new Choice(null, "'" + ABI_PROPERTY + "' = 'ffm' needs Java 22 or later; this is Java " + Runtime.version().feature());
        }
        try {
            return new Choice(new JniAbi(), null);
        } catch (IllegalStateException | LinkageError e) {
            return new Choice(null, e.getMessage());
        }
    }

    /** Whether a host can be reached here. */
    static boolean available() {
        return CHOICE.abi() != null;
    }

    /** Why no host can be reached here, or null when one can. */
    static String failure() {
        return CHOICE.failure();
    }

    /** @throws IllegalStateException naming what is missing when no host can be reached here */
    static void require() {
        abi();
    }

    /** {@code ffm} or {@code jni}. */
    static String name() {
        return abi().name();
    }

    private static Abi abi() {
        if (CHOICE.abi() == null) {
            throw new IllegalStateException(CHOICE.failure());
        }
        return CHOICE.abi();
    }

    /** {@code PG_ABI_VERSION} of the header the implementation was built with. */
    static int headerAbiVersion() {
        return abi().headerAbiVersion();
    }

    /** {@code sizeof(pg_host)} of that header. */
    static int hostStructSize() {
        return abi().hostStructSize();
    }

    /**
     * A new host from a host library's {@code pg_host_open_fn} named {@code symbol} in {@code
     * library}, or from the reference host built into the provider's JNI library when {@code
     * library} is null; 0 when the function returned NULL.
     *
     * @throws IllegalArgumentException when the library or the symbol cannot be loaded
     * @throws IllegalStateException when the reference host is asked for and the JNI library is missing
     */
    static long open(String library, String symbol, long limitBytes, String args) {
        return abi().open(library, symbol, limitBytes, args);
    }

    /** {abi_version, struct_size, callback_timeout_ms, cancel_poll_ms, the callbacks set as a bit mask}. */
    static long[] describe(long host) {
        return abi().describe(host);
    }

    static long tryReserve(long host, long bytes, int consumer) {
        return abi().tryReserve(host, bytes, consumer);
    }

    static long release(long host, long bytes, int consumer) {
        return abi().release(host, bytes, consumer);
    }

    static int isCancelled(long host) {
        return abi().isCancelled(host);
    }

    /** The host's own count, or -1 when it has no {@code used_bytes}. */
    static long usedBytes(long host) {
        return abi().usedBytes(host);
    }

    /** The host's {@code cancel}'s answer, or -1 when it has none. */
    static int cancel(long host, String reason) {
        return abi().cancel(host, reason);
    }

    /** Calls {@code on_metrics} when set: {@code values} are {@code write_id} and the fields after it, in order. */
    static void onMetrics(long host, long[] values, boolean finalReport) {
        abi().onMetrics(host, values, finalReport);
    }

    /** Calls {@code on_detach} when set. */
    static void onDetach(long host) {
        abi().onDetach(host);
    }
}
