package io.paimongov.tck;

import io.paimongov.allocator.support.PagedAllocator;
import java.nio.ByteBuffer;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
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
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(OWN_PAGE, capacity, engine);
        }
    }

    /**
     * Keeps a warm cache of {@value #CACHED} buffers of 64 KiB, made when the provider is made, and
     * hands them out as pages before it makes any, whatever the page size: released pages go back
     * to the engine, not to the cache, so the cache is used up after {@value #CACHED} pages. Until
     * then a write with 16 KiB pages gets 64 KiB ones. The cache belongs to the provider instance:
     * a kit that shared one instance between rules had it used up by the rules before MEM-9, which
     * then passed. In {@link BrokenProviders#FAULTS} for MEM-9, and in {@link
     * BrokenProviders#CARRIES_STATE}.
     */
    public static final class PageCache extends ReferenceProvider {
        static final int CACHED = 64;
        static final int CACHED_PAGE = 64 << 10;
        private final Queue<byte[]> warm = new ConcurrentLinkedQueue<>();

        public PageCache() {
            for (int i = 0; i < CACHED; i++) {
                warm.add(new byte[CACHED_PAGE]);
            }
        }

        @Override
        public String name() {
            return "broken-page-size-cache";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                protected MemorySegment newPage() {
                    byte[] cached = warm.poll();
                    return cached != null ? MemorySegment.wrap(cached) : super.newPage();
                }
            };
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
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
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
