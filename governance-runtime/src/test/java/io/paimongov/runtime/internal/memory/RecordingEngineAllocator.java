package io.paimongov.runtime.internal.memory;

import io.paimongov.allocator.support.EnginePagedAllocator;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * An engine whose pages are numbered {@code byte[]}s, handed out in number order, that records the
 * order in which they come back: the model of page order for the pool's tests.
 */
final class RecordingEngineAllocator extends EnginePagedAllocator<byte[]> {

    private final int pageSize;
    private int made;
    /** The numbers of the pages given back, in the order the engine got them. */
    final List<Integer> givenBack = new ArrayList<>();

    RecordingEngineAllocator(int pageSize, long capacity) {
        super("recording", "recording pages", pageSize, capacity, null);
        this.pageSize = pageSize;
    }

    @Override
    protected void takePages(int count, List<byte[]> into) {
        for (int i = 0; i < count; i++) {
            byte[] page = new byte[pageSize];
            page[0] = (byte) made++;
            into.add(page);
        }
    }

    @Override
    protected MemorySegment segment(byte[] page) {
        return MemorySegment.wrap(page);
    }

    @Override
    protected void givePages(List<byte[]> pages) {
        pages.forEach(p -> givenBack.add((int) p[0]));
    }

    @Override
    protected boolean reserveBytes(long bytes) {
        return true;
    }

    @Override
    protected void unreserveBytes(long bytes) {}
}
