package io.paimongov.tck;

import java.nio.ByteBuffer;
import org.apache.paimon.memory.MemorySegment;

/** Broken providers of the pages' size and memory (MEM-5, MEM-9), each changing one thing of {@link ReferenceProvider}. */
public final class BrokenPageProviders {

    private BrokenPageProviders() {}

    /**
     * Pages of 32 KiB whatever {@code governance.memory.page-size} says, and {@code pageSize()} says
     * so too, but it does not say that its engine fixes the size: the write's page size is not the
     * one configured. In {@link BrokenProviders#FAULTS} for MEM-9.
     */
    public static final class IgnoresPageSize extends ReferenceProvider {
        static final int OWN_PAGE = 32 << 10;

        @Override
        public String name() {
            return "broken-ignores-page-size";
        }

        @Override
        Allocator allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(OWN_PAGE, capacity, engine);
        }
    }

    /**
     * Off-heap pages cut from one native block, each new page starting 16 bytes before the end of
     * the one before: distinct segment objects over distinct addresses whose memory overlaps. Not in
     * {@link BrokenProviders#FAULTS} (MEM-5 has {@code broken-aliasing}); {@code
     * NativeAliasingTest} checks that MEM-5 fails it.
     */
    public static final class OverlappingNativePages extends ReferenceProvider {
        static final int OVERLAP = 16;

        @Override
        public String name() {
            return "broken-native-overlap";
        }

        @Override
        Allocator allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private ByteBuffer block;
                private int next;

                @Override
                protected synchronized MemorySegment newPage() {
                    int size = pageSize();
                    if (block == null || next + size > block.capacity()) {
                        block = ByteBuffer.allocateDirect((int) Math.min(Integer.MAX_VALUE, capacity + size));
                        next = 0;
                    }
                    MemorySegment page = MemorySegment.wrapOffHeapMemory(block.slice(next, size));
                    next += size - OVERLAP;
                    return page;
                }
            };
        }
    }
}
