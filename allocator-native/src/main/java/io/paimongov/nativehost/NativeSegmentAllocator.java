package io.paimongov.nativehost;

import io.paimongov.allocator.support.HeapPagedAllocator;
import io.paimongov.allocator.support.LeakCounter;
import io.paimongov.allocator.support.LeakReport;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;

/**
 * One write's memory on a native host: {@code byte[]} pages and reservations from the write's
 * budget, each charged to the host before it is handed out ({@code try_reserve}, pages as {@link
 * ConsumerKind#WRITE_BUFFER}) and given back to it ({@code release}) under the kind it was
 * reserved under. The bookkeeping is {@link HeapPagedAllocator}'s; this class adds the count of
 * what each kind holds, so that a release without a kind (and the close) goes back to the host
 * under the kinds that hold it.
 *
 * <p>Thread-safe: the hooks run under the allocator's lock, which also guards the counts by kind.
 * Throws {@link NativeCallbackException} from {@code allocate} and {@code tryReserve} once the host
 * failed, and from {@link #close()} when it failed while this write ran.
 */
final class NativeSegmentAllocator extends HeapPagedAllocator {

    private final NativeHost host;
    private final boolean ownsHost;
    private final long[] heldByKind = new long[ConsumerKind.values().length];

    /** @param ownsHost whether the host is this write's alone: it is detached when the write closes */
    NativeSegmentAllocator(NativeHost host, boolean ownsHost, int pageSize, long capacity, LeakCounter leaks) {
        super("native", "native host '" + host.name() + "' pages", pageSize, capacity, null, leaks);
        this.host = host;
        this.ownsHost = ownsHost;
    }

    /** A reservation without a kind: {@link ConsumerKind#OTHER}. */
    @Override
    protected boolean reserveBytes(long bytes) {
        return reserveBytes(bytes, ConsumerKind.OTHER);
    }

    @Override
    protected boolean reserveBytes(long bytes, ConsumerKind consumer) {
        if (!host.tryReserve(bytes, consumer)) {
            return false;
        }
        heldByKind[consumer.ordinal()] += bytes;
        return true;
    }

    /** A release without a kind: from {@link ConsumerKind#OTHER} first, then the others in code order. */
    @Override
    protected void unreserveBytes(long bytes) {
        unreserveBytes(bytes, ConsumerKind.OTHER);
    }

    /**
     * Gives {@code bytes} back under {@code consumer} first and, for what it does not hold, under
     * the other kinds. Each kind's count goes down only once the host took its part back.
     */
    @Override
    protected void unreserveBytes(long bytes, ConsumerKind consumer) {
        long left = giveBack(consumer, bytes);
        for (ConsumerKind kind : ConsumerKind.values()) {
            if (left == 0) {
                return;
            }
            if (kind != consumer) {
                left = giveBack(kind, left);
            }
        }
    }

    private long giveBack(ConsumerKind kind, long bytes) {
        long n = Math.min(bytes, heldByKind[kind.ordinal()]);
        if (n > 0) {
            host.release(n, kind);
            heldByKind[kind.ordinal()] -= n;
        }
        return bytes - n;
    }

    /**
     * Also tells the host the write closed, and detaches a host of the write's own; a failure of the
     * host while the write ran is what close throws.
     */
    @Override
    protected IllegalStateException closeEngine(LeakReport leak) {
        IllegalStateException error = super.closeEngine(leak);
        host.writeClosed();
        if (ownsHost) {
            try {
                NativeHosts.detach(host.name());
            } catch (IllegalStateException stuck) {
                error = error != null ? error : stuck;
            }
        }
        NativeCallbackException failed = host.failure().orElse(null);
        if (failed != null && error == null) {
            return new NativeCallbackException(failed, "the write closed on a failed host");
        }
        return error;
    }
}
