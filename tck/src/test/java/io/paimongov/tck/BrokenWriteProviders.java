package io.paimongov.tck;

import io.paimongov.allocator.support.PagedAllocator;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.paimon.memory.MemorySegment;

/**
 * Providers broken in what a real write gets from them (WRITE-*), one thing each. Their pages have
 * the right size and are never live twice, so the runtime's boundary checks let them through: only
 * the content a write commits shows the fault. They zero whole pages, on the writing thread, which
 * keeps most of Paimon's reads inside the page; but Paimon reads its pages without bounds checks,
 * and a row whose start was zeroed while its end was not can still send a read outside the heap:
 * one run of these providers in five to ten crashed its JVM here (see {@link #MAY_CRASH}).
 */
public final class BrokenWriteProviders {

    private BrokenWriteProviders() {}

    /**
     * The providers whose fault can crash the JVM that runs them; {@code BrokenProvidersTest} runs
     * them in a JVM of their own ({@link OwnJvm}).
     */
    static final Set<String> MAY_CRASH = Set.of("broken-wipes-live-pages", "broken-zeroes-first-page");

    /**
     * Means to hand out clean pages, and clears its whole list of pages for it: every allocation
     * zeroes every page it has out, those the write has filled among them.
     */
    public static final class WipesLivePages extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-wipes-live-pages";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private final Set<MemorySegment> live = Collections.newSetFromMap(new IdentityHashMap<>());

                @Override
                public void allocate(List<MemorySegment> target, int pages) {
                    int before = target.size();
                    super.allocate(target, pages);
                    synchronized (live) {
                        byte[] zeros = new byte[pageSize()];
                        for (MemorySegment page : live) {
                            page.put(0, zeros, 0, zeros.length);
                        }
                        live.addAll(target.subList(before, target.size()));
                    }
                }

                @Override
                public void release(Collection<MemorySegment> pages) {
                    synchronized (live) {
                        pages.forEach(live::remove);
                    }
                    super.release(pages);
                }
            };
        }
    }

    /**
     * Takes the first page it hands out for a scratch page of its own, though the write holds it:
     * every later allocation zeroes that page.
     */
    public static final class ZeroesFirstPage extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-zeroes-first-page";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private MemorySegment first;

                @Override
                public void allocate(List<MemorySegment> target, int pages) {
                    int before = target.size();
                    super.allocate(target, pages);
                    synchronized (this) {
                        if (first == null) {
                            first = target.get(before);
                        } else {
                            byte[] zeros = new byte[pageSize()];
                            first.put(0, zeros, 0, zeros.length);
                        }
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
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, 2 * capacity, engine);
        }
    }
}
