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
 * the content a write commits shows the fault.
 */
public final class BrokenWriteProviders {

    private BrokenWriteProviders() {}

    /**
     * Keeps its bookkeeping in the pages it handed out: on every grant (a page or a reservation) it
     * writes the number of grants so far into the first 8 bytes of every page still live.
     */
    public static final class Scribbles extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-scribbles";
        }

        @Override
        Allocator allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private final Set<MemorySegment> live = Collections.newSetFromMap(new IdentityHashMap<>());
                private long grants;

                @Override
                public void allocate(List<MemorySegment> target, int pages) {
                    int before = target.size();
                    super.allocate(target, pages);
                    synchronized (live) {
                        scribble();
                        live.addAll(target.subList(before, target.size()));
                    }
                }

                @Override
                public boolean tryReserve(long bytes) {
                    boolean granted = super.tryReserve(bytes);
                    if (granted) {
                        synchronized (live) {
                            scribble();
                        }
                    }
                    return granted;
                }

                @Override
                public void release(Collection<MemorySegment> pages) {
                    synchronized (live) {
                        pages.forEach(live::remove);
                    }
                    super.release(pages);
                }

                private void scribble() {
                    grants++;
                    for (MemorySegment page : live) {
                        page.putLong(0, grants);
                    }
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
