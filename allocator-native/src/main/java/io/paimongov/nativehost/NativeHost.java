package io.paimongov.nativehost;

import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attached native host: the {@code pg_host} at an address, seen from Java (paimon_governance.h;
 * docs/native.md). Every write opened on it asks it for memory ({@link #tryReserve}), gives memory
 * back ({@link #release}) and hears its cancel ({@link HostCancel}); its metrics go to {@code
 * on_metrics} ({@link HostMetrics}).
 *
 * <p>A host fails once a required callback fails, answers nonsense or overruns the callback
 * timeout: from then on every request for memory throws {@link NativeCallbackException} naming the
 * first failure, while releases still reach the host. After {@link NativeHosts#detach} the host is
 * never called again.
 *
 * <p>Thread-safe: any thread may call anything; every callback goes through {@link HostCalls}.
 */
public final class NativeHost {

    private static final Logger LOG = LoggerFactory.getLogger(NativeHost.class);

    private enum State { ATTACHED, DETACHING, DETACHED }

    private final String name;
    private final long address;
    private final HostDescription description;
    private final HostCalls calls;
    private final HostCancel cancel;
    private final HostMetrics metrics;
    private final AtomicReference<State> state = new AtomicReference<>(State.ATTACHED);
    private final AtomicReference<NativeCallbackException> failure = new AtomicReference<>();
    private final AtomicLong held = new AtomicLong();
    private final AtomicInteger openWrites = new AtomicInteger();
    private final AtomicLong writeIds = new AtomicLong();

    /** Reads and checks the host at {@code address} (see {@link HostDescription#read}). */
    NativeHost(String name, long address) {
        this.name = name;
        this.address = address;
        this.description = HostDescription.read(name, address);
        this.calls = new HostCalls(name, description.callbackTimeoutMillis());
        this.cancel = new HostCancel(this);
        this.metrics = new HostMetrics(this);
    }

    /** The name it was attached under. */
    public String name() {
        return name;
    }

    /** The bytes writes hold on this host now, by the provider's count: granted and not released. */
    public long heldBytes() {
        return held.get();
    }

    /** The host's own count ({@code used_bytes}), or empty when it has none or the call failed. */
    public OptionalLong usedBytes() {
        if (!description.has(HostDescription.USED_BYTES) || state.get() == State.DETACHED) {
            return OptionalLong.empty();
        }
        try {
            long used = calls.call("used_bytes", () -> HostAbi.usedBytes(address), null);
            return OptionalLong.of(used);
        } catch (NativeCallbackException e) {
            LOG.warn("{}", e.getMessage());
            return OptionalLong.empty();
        }
    }

    /**
     * Asks the host to cancel its work as it would itself ({@code cancel}); its writes stop once
     * {@code is_cancelled} says so.
     *
     * @return false when the host has no {@code cancel} or it did not succeed
     */
    public boolean cancelFromHost(String reason) {
        if (!description.has(HostDescription.CANCEL) || state.get() == State.DETACHED) {
            return false;
        }
        try {
            return calls.call("cancel", () -> HostAbi.cancel(address, reason == null ? "" : reason), null) == 0;
        } catch (NativeCallbackException e) {
            LOG.warn("{}", e.getMessage());
            return false;
        }
    }

    /** The host's first failure, if it failed. */
    public Optional<NativeCallbackException> failure() {
        return Optional.ofNullable(failure.get());
    }

    /** Writes open on this host now. */
    public int openWrites() {
        return openWrites.get();
    }

    // ---- for the provider --------------------------------------------------------------------

    HostDescription description() {
        return description;
    }

    HostCalls calls() {
        return calls;
    }

    long address() {
        return address;
    }

    HostCancel cancel() {
        return cancel;
    }

    HostMetrics metrics() {
        return metrics;
    }

    /**
     * A write opens on this host; returns its number (the {@code write_id} of its metrics).
     *
     * @throws IllegalStateException when the host is detaching or detached
     */
    long writeOpened() {
        openWrites.incrementAndGet();
        if (state.get() != State.ATTACHED) {
            openWrites.decrementAndGet();
            throw new IllegalStateException("the native host '" + name + "' is detached: no write can open on it");
        }
        cancel.writeOpened();
        return writeIds.incrementAndGet();
    }

    /** A write on this host closed (its allocator gave everything back). */
    void writeClosed() {
        if (openWrites.decrementAndGet() == 0) {
            calls.writesEnded();
        }
    }

    /**
     * Asks the host for {@code bytes} of {@code kind}, all or nothing.
     *
     * @return whether the host granted them
     * @throws NativeCallbackException when the host failed, now or before
     */
    boolean tryReserve(long bytes, ConsumerKind kind) {
        ensureUsable();
        long answer = required("try_reserve", () -> HostAbi.tryReserve(address, bytes, kind.code()), late -> {
            if (late > 0) {
                // The caller stopped waiting and took nothing: what the host granted after all goes back.
                releaseQuietly(late, kind);
            }
        });
        if (answer == bytes) {
            held.addAndGet(bytes);
            return true;
        }
        if (answer == 0) {
            return false;
        }
        if (answer < 0) {
            throw fail("try_reserve", "returned the error " + answer + " when asked for " + bytes + " bytes of " + kind.label());
        }
        releaseQuietly(answer, kind);
        throw fail("try_reserve", "granted " + answer + " bytes when asked for " + bytes + " of " + kind.label()
                + " (a grant is all or nothing: " + bytes + " or 0); the grant was released again");
    }

    /**
     * Gives {@code bytes} of {@code kind} back to the host. Not called after the host detached.
     *
     * @throws NativeCallbackException when the host did not take them back (they stay counted by the caller)
     */
    void release(long bytes, ConsumerKind kind) {
        if (state.get() == State.DETACHED) {
            return;
        }
        long answer = required("release", () -> HostAbi.release(address, bytes, kind.code()), null);
        if (answer == bytes) {
            held.addAndGet(-bytes);
            return;
        }
        if (answer < 0) {
            throw fail("release", "returned the error " + answer + " when given back " + bytes + " bytes of " + kind.label()
                    + "; they stay charged and are offered again when the write closes");
        }
        held.addAndGet(-bytes);
        fail("release", "answered " + answer + " when given back " + bytes + " bytes of " + kind.label()
                + " (it must answer what it took back: " + bytes + "); the host's count is wrong now");
    }

    /** A call of a required callback: one that fails or does not answer in time fails the host. */
    private long required(String callback, LongSupplier call, LongConsumer late) {
        try {
            return calls.call(callback, call, late);
        } catch (NativeCallbackException e) {
            throw fail(e);
        }
    }

    private void releaseQuietly(long bytes, ConsumerKind kind) {
        if (state.get() == State.DETACHED) {
            return;
        }
        try {
            calls.call("release", () -> HostAbi.release(address, bytes, kind.code()), null);
        } catch (NativeCallbackException e) {
            LOG.warn("{}", e.getMessage());
        }
    }

    /** @throws NativeCallbackException the first failure again, or IllegalStateException once detached */
    void ensureUsable() {
        NativeCallbackException first = failure.get();
        if (first != null) {
            throw new NativeCallbackException(first, "the host failed earlier; no memory is taken from it any more");
        }
        if (state.get() == State.DETACHED) {
            throw new IllegalStateException("the native host '" + name + "' is detached");
        }
    }

    /** Records the host's first failure, logs it, and returns the error to throw. */
    NativeCallbackException fail(String callback, String what) {
        return fail(new NativeCallbackException(name, callback, what));
    }

    NativeCallbackException fail(NativeCallbackException e) {
        if (failure.compareAndSet(null, e)) {
            LOG.error("{}; every later request for memory on it fails", e.getMessage());
        }
        return e;
    }

    /**
     * Cancels the writes still open, waits for them to close and for every call in the host to
     * return, then calls {@code on_detach} and never calls the host again.
     *
     * @return the bytes the writes still held on the host at the end (0 when everything came back)
     * @throws IllegalStateException when writes are still open or a call is still in the host after
     *     the callback timeout: the host must then keep its ctx alive
     */
    long detach() {
        state.compareAndSet(State.ATTACHED, State.DETACHING);
        cancel.detaching("the native host '" + name + "' detached");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(calls.waitMillis());
        while (openWrites.get() > 0 && System.nanoTime() < deadline) {
            pause();
        }
        if (openWrites.get() > 0) {
            throw new IllegalStateException(openWrites.get() + " write(s) on the native host '" + name + "' did not close within "
                    + calls.waitMillis() + " ms of the detach; it stays attached for their releases");
        }
        cancel.stop();
        while (calls.inHost() > 0 && System.nanoTime() < deadline) {
            pause();
        }
        if (calls.inHost() > 0) {
            throw new IllegalStateException(calls.inHost() + " callback(s) are still running in the native host '" + name
                    + "' after " + calls.waitMillis() + " ms; keep its ctx alive");
        }
        state.set(State.DETACHED);
        if (description.has(HostDescription.ON_DETACH)) {
            try {
                calls.call("on_detach", () -> {
                    HostAbi.onDetach(address);
                    return 0;
                }, null);
            } catch (NativeCallbackException e) {
                LOG.warn("{}", e.getMessage());
            }
        }
        calls.shutdown();
        return held.get();
    }

    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while detaching a native host", e);
        }
    }

    boolean detached() {
        return state.get() == State.DETACHED;
    }

    @Override
    public String toString() {
        return "native host '" + name + "'";
    }
}
