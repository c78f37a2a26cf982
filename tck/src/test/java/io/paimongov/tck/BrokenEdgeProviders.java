package io.paimongov.tck;

import io.paimongov.allocator.support.PagedAllocator;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.paimon.memory.MemorySegment;

/**
 * Providers broken where MEM-14 to MEM-17 look, each the reference provider with one plausible
 * fault that every other rule of the kit lets pass.
 */
public final class BrokenEdgeProviders {

    private BrokenEdgeProviders() {}

    /** Keeps its capacity in an {@code int}: a budget past 2 GiB wraps (3 GiB becomes -1 GiB). */
    public static final class IntBudget extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-int-budget";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            int inAnInt = (int) capacity;
            return super.allocator(pageSize, inAnInt, engine);
        }
    }

    /**
     * Gives nothing back when the releasing thread is interrupted, as if the interrupt meant the
     * write is going away anyway: the memory stays taken until the write closes.
     */
    public static final class SkipsReleaseWhenInterrupted extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-skips-interrupted-release";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                public void release(Collection<MemorySegment> pages) {
                    if (!Thread.currentThread().isInterrupted()) {
                        super.release(pages);
                    }
                }

                @Override
                public void release(long bytes) {
                    if (!Thread.currentThread().isInterrupted()) {
                        super.release(bytes);
                    }
                }
            };
        }
    }

    /**
     * Decides which pages are live by a collection of its own without a lock ({@link #tracking()}):
     * a page goes back only when the collection still has it. Its counters are the base's, locked;
     * the collection alone is unsafe, so two threads that change it at once lose a page, which then
     * never goes back.
     */
    abstract static class UnlockedTracking extends ReferenceProvider {
        /** A new, unsynchronized collection of live pages. */
        abstract Collection<MemorySegment> tracking();

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                private final Collection<MemorySegment> live = tracking();

                @Override
                public void allocate(List<MemorySegment> target, int pages) {
                    int before = target.size();
                    super.allocate(target, pages);
                    live.addAll(target.subList(before, target.size()));
                }

                @Override
                public void release(Collection<MemorySegment> pages) {
                    List<MemorySegment> mine = new ArrayList<>(pages.size());
                    for (MemorySegment page : pages) {
                        if (live.remove(page)) {
                            mine.add(page);
                        }
                    }
                    super.release(mine);
                }
            };
        }
    }

    /** {@link UnlockedTracking} with a plain {@link HashSet}. */
    public static final class UnlockedPageSet extends UnlockedTracking {
        @Override
        public String name() {
            return "broken-unlocked-page-set";
        }

        @Override
        Collection<MemorySegment> tracking() {
            return new HashSet<>();
        }
    }

    /**
     * {@link UnlockedTracking} with a plain {@link ArrayList}: two threads that add at once may lose
     * a page or grow the list past its array; a removal shifts the list under another thread's
     * feet. Not in {@code FAULTS} (MEM-16 has {@link UnlockedPageSet}); {@code OverlapRaceTest}
     * checks that MEM-16 fails it.
     */
    public static final class UnlockedPageList extends UnlockedTracking {
        @Override
        public String name() {
            return "broken-unlocked-page-list";
        }

        @Override
        Collection<MemorySegment> tracking() {
            return new ArrayList<>();
        }
    }

    /**
     * Keeps the arrays of released pages, per engine, and hands them out again without asking the
     * engine, to spare the garbage collector: the memory went back to the engine when the page was
     * first released, and a page from the cache is not charged again. Such a page goes back to the
     * cache when released, without touching the engine, so the engine's counter never goes below
     * its start and is back there after every close; only while a cached page is held does the
     * engine count less than the writes hold.
     */
    public static final class PageCache extends ReferenceProvider {
        /** Released arrays per engine; an engine that is gone takes its cache with it. */
        private static final Map<Engine, List<byte[]>> CACHES = Collections.synchronizedMap(new WeakHashMap<>());

        @Override
        public String name() {
            return "broken-page-cache";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            List<byte[]> cache = CACHES.computeIfAbsent(engine, e -> new ArrayList<>());
            // An engine kind: it says its page call does the engine's accounting, and charges only
            // the pages it does not take from the cache.
            return new EngineKind(pageSize, capacity, engine) {
                /** Pages handed out from the cache, not charged to the engine. */
                private final Set<MemorySegment> uncharged = Collections.newSetFromMap(new IdentityHashMap<>());

                @Override
                protected void takePages(int count, List<MemorySegment> into) {
                    synchronized (cache) {
                        if (cache.size() >= count) {
                            for (int i = 0; i < count; i++) {
                                MemorySegment page = MemorySegment.wrap(cache.remove(cache.size() - 1));
                                uncharged.add(page);
                                into.add(page);
                            }
                            return;
                        }
                    }
                    if (!engine.take((long) count * pageSize())) {
                        throw new EngineRefused();
                    }
                    for (int i = 0; i < count; i++) {
                        into.add(MemorySegment.wrap(new byte[pageSize()]));
                    }
                }

                @Override
                protected boolean isRefusal(Throwable failure) {
                    return failure instanceof EngineRefused;
                }

                /** Charged pages give their bytes back; released arrays go to the cache, not those of a close. */
                @Override
                protected void givePages(List<MemorySegment> pages) {
                    long charged = 0;
                    List<byte[]> back = new ArrayList<>();
                    for (MemorySegment page : pages) {
                        if (!uncharged.remove(page)) {
                            charged += pageSize();
                        }
                        back.add(page.getHeapMemory());
                    }
                    engine.give(charged);
                    if (!isClosed()) {
                        synchronized (cache) {
                            cache.addAll(back);
                        }
                    }
                }
            };
        }

        /** The engine had not the bytes of the pages asked for. */
        private static final class EngineRefused extends RuntimeException {
            private static final long serialVersionUID = 1L;
        }
    }
}
