package io.paimongov.nativehost;

/**
 * A native host's callback failed, answered nonsense or did not answer in time
 * (paimon_governance.h, "FAILURES"; docs/native.md). Thrown by the native provider's memory calls
 * once the host failed, and by a write's close when its host failed while it ran. The message names
 * the host, the callback and what it did; the JVM goes on.
 *
 * <p>Immutable.
 */
public final class NativeCallbackException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String host;
    private final String callback;

    /**
     * @param host the name the host was attached under
     * @param callback the callback of {@code pg_host}, such as {@code try_reserve}
     * @param what what it did
     */
    public NativeCallbackException(String host, String callback, String what) {
        super("the native host '" + host + "': its callback " + callback + " " + what);
        this.host = host;
        this.callback = callback;
    }

    /** The same failure met again, later, with {@code first} as its cause. */
    NativeCallbackException(NativeCallbackException first, String when) {
        super(first.getMessage() + " (" + when + ")", first);
        this.host = first.host;
        this.callback = first.callback;
    }

    /** The name the host was attached under. */
    public String host() {
        return host;
    }

    /** The callback that failed, as {@code pg_host} names it: {@code try_reserve}, {@code release}, {@code is_cancelled}, ... */
    public String callback() {
        return callback;
    }
}
