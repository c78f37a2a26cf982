package io.paimongov.tck;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.paimon.memory.MemorySegment;

/**
 * Providers broken in what a real write gets from them (WRITE-*), one thing each. Their pages have
 * the right size and are never live twice, so the runtime's boundary checks let them through: only
 * the content a write commits shows the fault. The page faults zero whole pages, on the writing
 * thread: Paimon reads its pages without bounds checks, and bytes of any other value where it keeps
 * lengths and offsets send its reads outside the page (out of memory errors, a crashed JVM); zeros
 * keep every read inside the page, so the write only commits wrong rows or fails.
 */
public final class BrokenWriteProviders {

    private BrokenWriteProviders() {}

    /**
     * Clears its live pages after it got pages back: once a release came in, its next allocation
     * zeroes every page it has out, meaning to clean the pages it will hand out again. Only a write
     * that gives pages back while it runs (one under a small budget) is hit.
     */
    public static final class ClearsAfterRelease extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-clears-after-release";
        }

        @Override
        Allocator allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private final Set<MemorySegment> live = Collections.newSetFromMap(new IdentityHashMap<>());
                private boolean released;

                @Override
                public void allocate(List<MemorySegment> target, int pages) {
                    int before = target.size();
                    super.allocate(target, pages);
                    synchronized (live) {
                        if (released) {
                            byte[] zeros = new byte[pageSize()];
                            for (MemorySegment page : live) {
                                page.put(0, zeros, 0, zeros.length);
                            }
                            released = false;
                        }
                        live.addAll(target.subList(before, target.size()));
                    }
                }

                @Override
                public void release(Collection<MemorySegment> pages) {
                    synchronized (live) {
                        pages.forEach(live::remove);
                        released = true;
                    }
                    super.release(pages);
                }
            };
        }
    }

    /**
     * Means to clear each new page but clears the one it handed out before it: every allocation
     * zeroes the previous page, which the write is still filling.
     */
    public static final class ZeroesPrevious extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-zeroes-previous";
        }

        @Override
        Allocator allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private final List<MemorySegment> previous = new ArrayList<>();

                @Override
                public void allocate(List<MemorySegment> target, int pages) {
                    int before = target.size();
                    super.allocate(target, pages);
                    synchronized (previous) {
                        byte[] zeros = new byte[pageSize()];
                        for (MemorySegment page : previous) {
                            page.put(0, zeros, 0, zeros.length);
                        }
                        previous.clear();
                        previous.addAll(target.subList(before, target.size()));
                    }
                }
            };
        }
    }

    /** Says its capacity is twice the budget it was given; its engine holds the budget only. */
    public static final class OverstatesCapacity extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-overstates-capacity";
        }

        @Override
        Allocator allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, 2 * capacity, engine);
        }
    }
}
