package io.paimongov.nativehost;

/**
 * {@link HostAbi} over JNI (src/main/c/pg_jni.c), on every Java version: each native reads the
 * {@code pg_host} at {@code host} and calls one of its callbacks on the calling thread, or reads its
 * fields.
 *
 * <p>Stateless. Made once the provider's JNI library is loaded ({@link NativeLibrary#loadForJni()}).
 */
final class JniAbi implements HostAbi.Abi {

    /** @throws IllegalStateException naming what is missing when the JNI library cannot be loaded */
    JniAbi() {
        NativeLibrary.loadForJni();
    }

    @Override
    public String name() {
        return "jni";
    }

    @Override
    public int headerAbiVersion() {
        return abiVersion0();
    }

    @Override
    public int hostStructSize() {
        return hostStructSize0();
    }

    @Override
    public long open(String library, String symbol, long limitBytes, String args) {
        return open0(library, symbol, limitBytes, args);
    }

    @Override
    public long[] describe(long host) {
        return describe0(host);
    }

    @Override
    public long tryReserve(long host, long bytes, int consumer) {
        return tryReserve0(host, bytes, consumer);
    }

    @Override
    public long release(long host, long bytes, int consumer) {
        return release0(host, bytes, consumer);
    }

    @Override
    public int isCancelled(long host) {
        return isCancelled0(host);
    }

    @Override
    public long usedBytes(long host) {
        return usedBytes0(host);
    }

    @Override
    public int cancel(long host, String reason) {
        return cancel0(host, reason);
    }

    @Override
    public void onMetrics(long host, long[] values, boolean finalReport) {
        onMetrics0(host, values, finalReport);
    }

    @Override
    public void onDetach(long host) {
        onDetach0(host);
    }

    // ---- the natives, one per C function of pg_jni.c -------------------------------------------

    /** {@code PG_ABI_VERSION} of the header the library was built with. */
    private static native int abiVersion0();

    /** {@code sizeof(pg_host)} of the header the library was built with. */
    private static native int hostStructSize0();

    /**
     * A new host from a host library's {@code pg_host_open_fn} named {@code symbol} in {@code
     * library}, or from the reference host built into this library when {@code library} is null;
     * 0 when the function returned NULL.
     *
     * @throws IllegalArgumentException when the library or the symbol cannot be loaded (the message is dlerror's)
     */
    private static native long open0(String library, String symbol, long limitBytes, String args);

    /** {abi_version, struct_size, callback_timeout_ms, cancel_poll_ms, the callbacks set as a bit mask}. */
    private static native long[] describe0(long host);

    private static native long tryReserve0(long host, long bytes, int consumer);

    private static native long release0(long host, long bytes, int consumer);

    private static native int isCancelled0(long host);

    /** The host's own count, or -1 when it has no {@code used_bytes}. */
    private static native long usedBytes0(long host);

    /** The host's {@code cancel}'s answer, or -1 when it has none. */
    private static native int cancel0(long host, String reason);

    /** Calls {@code on_metrics} when set: {@code values} are {@code write_id} and the fields after it, in order. */
    private static native void onMetrics0(long host, long[] values, boolean finalReport);

    /** Calls {@code on_detach} when set. */
    private static native void onDetach0(long host);
}
