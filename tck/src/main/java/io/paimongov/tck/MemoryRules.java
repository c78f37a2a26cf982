package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import org.apache.paimon.memory.MemorySegment;

/**
 * MEM-1 to MEM-5: the allocator's accounting and pages, checked on the provider's {@link
 * SegmentAllocator} directly against a reference model. The lifecycle rules (MEM-6 to MEM-9) are
 * in {@link LifecycleRules}.
 */
interface MemoryRules extends TckContext {

    long MEM_BUDGET = 4L << 20;

    /** The allocator of one open write and a reference model of what it must hold. */
    static final class AllocatorModel implements AutoCloseable {
        final TckSubject subject;
        final EngineResources resources;
        final SegmentAllocator allocator;
        final List<MemorySegment> pages = new ArrayList<>();
        final List<Long> reservations = new ArrayList<>();
        long modelBytes;

        AllocatorModel(TckSubject subject) {
            this.subject = subject;
            this.resources = subject.open();
            this.allocator = resources.memory();
        }

        /**
         * Opens the write's allocator and asks it at its limit first, so every try of MEM-1 meets the
         * boundary whatever the random chain draws: the whole capacity in one reservation, then one
         * byte more, which must be refused when the first was granted. Both are given back before the
         * chain starts. An allocator may refuse the whole capacity in one piece; the byte is then
         * asked of an empty allocator and proves nothing, the chain still does.
         */
        static AllocatorModel atTheLimitFirst(TckSubject subject) {
            AllocatorModel model = new AllocatorModel(subject);
            try {
                model.reserve(model.capacity());
                model.reserve(1);
                while (!model.reservations.isEmpty()) {
                    model.releaseReservation(model.reservations.size() - 1);
                }
                model.checkAccounting();
                return model;
            } catch (RuntimeException | Error e) {
                Cleanup.after(e, model);
                throw e;
            }
        }

        long capacity() {
            return allocator.capacityBytes();
        }

        void reserve(long bytes) {
            boolean fits = modelBytes + bytes <= capacity();
            boolean granted = allocator.tryReserve(bytes);
            check(Rule.MEM_1, fits || !granted,
                    "tryReserve(" + bytes + ") was granted with " + modelBytes + " of " + capacity() + " bytes taken: accounting passed the capacity",
                    "tryReserve must return false for what does not fit in capacityBytes(), the check and the update one atomic step.");
            if (granted) {
                reservations.add(bytes);
                modelBytes += bytes;
            }
        }

        void releaseReservation(int index) {
            long bytes = reservations.remove(index);
            allocator.release(bytes);
            modelBytes -= bytes;
        }

        void allocate(int count) {
            long bytes = (long) count * allocator.pageSize();
            boolean fits = modelBytes + bytes <= capacity();
            List<MemorySegment> target = new ArrayList<>();
            try {
                allocator.allocate(target, count);
            } catch (ResourceExhaustedException e) {
                check(Rule.MEM_1, target.isEmpty(), "a refused allocate() still added " + target.size() + " pages",
                        "a refused allocate must leave the target list untouched: check room for every page before taking the first.");
                return;
            }
            check(Rule.MEM_1, fits,
                    "allocate(" + count + " pages) succeeded with " + modelBytes + " of " + capacity() + " bytes taken: accounting passed the capacity",
                    "allocate must throw ResourceExhaustedException for pages that do not fit in capacityBytes().");
            check(Rule.MEM_1, target.size() == count, "allocate(" + count + ") gave " + target.size() + " pages",
                    "allocate(target, n) must add exactly n pages.");
            pages.addAll(target);
            modelBytes += bytes;
        }

        void free(int from, int count) {
            List<MemorySegment> freed = new ArrayList<>(pages.subList(from, from + count));
            pages.subList(from, from + count).clear();
            allocator.release(freed);
            modelBytes -= (long) count * allocator.pageSize();
        }

        void checkAccounting() {
            long used = allocator.usedBytes();
            check(Rule.MEM_1, used == modelBytes,
                    "usedBytes() is " + used + " but live pages and reservations add up to " + modelBytes,
                    "usedBytes() must be exactly live pages plus reservations: count every grant and every release, and nothing else.");
            check(Rule.MEM_1, used <= capacity(), "usedBytes() " + used + " passed capacityBytes() " + capacity());
        }

        @Override
        public void close() {
            try (subject; resources) {
                if (!pages.isEmpty()) {
                    allocator.release(new ArrayList<>(pages));
                }
                reservations.forEach(allocator::release);
            }
        }
    }

    @Property
    @Verifies(Rule.MEM_1)
    default void required_MEM1_accountingFollowsTheModelAndNeverPassesTheCapacity(
            @ForAll("allocatorChains") ActionChain<AllocatorModel> chain) {
        AllocatorModel last = null;
        Throwable verdict = null;
        try {
            last = chain.withInvariant("accounting", AllocatorModel::checkAccounting).run();
        } catch (RuntimeException | Error e) {
            verdict = e;
            throw e;
        } finally {
            AllocatorModel model = chain.finalState().orElse(last);
            if (model != null) {
                Cleanup.after(verdict, model);
            }
        }
    }

    @Provide
    default Arbitrary<ActionChain<AllocatorModel>> allocatorChains() {
        return ActionChain.<AllocatorModel>startWith(() -> AllocatorModel.atTheLimitFirst(subject(MEM_BUDGET)))
                .withAction(new Reserve())
                .withAction(new ReleaseReservation())
                .withAction(new Allocate())
                .withAction(new Free())
                .withMaxTransformations(60);
    }

    final class Reserve implements Action.Independent<AllocatorModel> {
        @Override
        public Arbitrary<Transformer<AllocatorModel>> transformer() {
            return Arbitraries.longs()
                    .between(1, MEM_BUDGET / 3)
                    .map(n -> Transformer.mutate("reserve " + n, m -> m.reserve(n)));
        }
    }

    final class ReleaseReservation implements Action.Dependent<AllocatorModel> {
        @Override
        public boolean precondition(AllocatorModel m) {
            return !m.reservations.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<AllocatorModel>> transformer(AllocatorModel m) {
            return Arbitraries.integers()
                    .between(0, m.reservations.size() - 1)
                    .map(i -> Transformer.mutate("release reservation #" + i, s -> s.releaseReservation(i)));
        }
    }

    final class Allocate implements Action.Independent<AllocatorModel> {
        @Override
        public Arbitrary<Transformer<AllocatorModel>> transformer() {
            return Arbitraries.integers().between(1, 24).map(n -> Transformer.mutate("allocate " + n + " pages", m -> m.allocate(n)));
        }
    }

    final class Free implements Action.Dependent<AllocatorModel> {
        @Override
        public boolean precondition(AllocatorModel m) {
            return !m.pages.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<AllocatorModel>> transformer(AllocatorModel m) {
            int size = m.pages.size();
            return Arbitraries.integers()
                    .between(0, size - 1)
                    .flatMap(from -> Arbitraries.integers().between(1, size - from)
                            .map(count -> Transformer.mutate("free " + count + " pages from #" + from, s -> s.free(from, count))));
        }
    }

    @Example
    @Verifies(Rule.MEM_2)
    default void required_MEM2_racesAtTheLimitNeverPassTheCapacityAndLoseNoUpdate() throws Exception {
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources resources = s.open();
            SegmentAllocator allocator = resources.memory();
            String violation = new LimitRace(allocator, s, LimitRace.threadsForThisMachine(), settings().raceRounds(), 42).run();
            check(Rule.MEM_2, violation == null, violation);
            check(Rule.MEM_2, allocator.usedBytes() == 0, "usedBytes() is " + allocator.usedBytes() + " after every thread gave everything back");
            s.checkEngineBack(Rule.MEM_2, "every thread gave everything back");
            resources.close();
        }
    }

    @Example
    @Verifies(Rule.MEM_3)
    default void required_MEM3_aFailedReservationLeavesAccountingUnchanged() {
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources resources = s.open();
            SegmentAllocator allocator = resources.memory();
            long capacity = allocator.capacityBytes();
            check(Rule.MEM_3, allocator.tryReserve(capacity / 2), "tryReserve(half the capacity) was refused on an empty allocator");
            long used = allocator.usedBytes();
            long engine = s.engine.engineUsedBytes();
            check(Rule.MEM_3, !allocator.tryReserve(capacity), "tryReserve(the whole capacity) was granted with half of it taken");
            check(Rule.MEM_3, allocator.usedBytes() == used, "a refused tryReserve moved usedBytes() from " + used + " to " + allocator.usedBytes());
            check(Rule.MEM_3, s.engine.engineUsedBytes() == engine,
                    "a refused tryReserve moved the engine counter from " + engine + " to " + s.engine.engineUsedBytes());
            allocator.release(capacity / 2);
            resources.close();
        }
    }

    @Example
    @Verifies(Rule.MEM_4)
    default void required_MEM4_pageAllocationIsAllOrNothing() {
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources resources = s.open();
            SegmentAllocator allocator = resources.memory();
            int fit = (int) (allocator.capacityBytes() / allocator.pageSize());
            List<MemorySegment> most = new ArrayList<>();
            allocator.allocate(most, fit - 2);
            long used = allocator.usedBytes();
            List<MemorySegment> target = new ArrayList<>();
            boolean refused = false;
            try {
                allocator.allocate(target, 5);
            } catch (ResourceExhaustedException e) {
                refused = true;
            }
            check(Rule.MEM_4, refused, "allocate(5 pages) with room for 2 did not throw ResourceExhaustedException",
                    "allocate must throw ResourceExhaustedException when the pages asked for do not all fit, not give fewer.");
            check(Rule.MEM_4, target.isEmpty(), "a refused allocate(5 pages) added " + target.size() + " pages to the target",
                    "check room for every page before taking the first, or take the pages taken out of the target before throwing.");
            check(Rule.MEM_4, allocator.usedBytes() == used,
                    "a refused allocate moved usedBytes() from " + used + " to " + allocator.usedBytes(),
                    "give back what a refused allocate took before throwing, in the allocator's books and in the engine.");
            allocator.allocate(target, 2);
            check(Rule.MEM_4, target.size() == 2, "allocate(2 pages) with room for 2 gave " + target.size());
            allocator.release(most);
            allocator.release(target);
            resources.close();
        }
    }

    @Property
    @Verifies(Rule.MEM_5)
    default void required_MEM5_pagesHaveThePageSizeAreWritableAndNeverAlias(
            @ForAll @IntRange(min = 2, max = 40) int count, @ForAll long seed) {
        try (TckSubject s = subject(MEM_BUDGET)) {
            EngineResources resources = s.open();
            SegmentAllocator allocator = resources.memory();
            List<MemorySegment> pages = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                allocator.allocate(pages, 1);
            }
            int size = allocator.pageSize();
            for (MemorySegment page : pages) {
                check(Rule.MEM_5, page.size() == size, "a page has " + page.size() + " bytes; pageSize() is " + size);
            }
            String shared = sharing(pages, size, seed);
            check(Rule.MEM_5, shared == null, shared);
            allocator.release(pages);
            resources.close();
        }
    }

    /**
     * Fills every 8-byte slot of every page with a mark of its own (from {@code seed}, the page and
     * the slot), then reads them all back: a page whose memory overlaps another live page's by even
     * one byte, at whatever address, loses marks to the page written after it. What shows that two
     * live pages share an object or memory, or null when none do.
     */
    static String sharing(List<MemorySegment> pages, int size, long seed) {
        Set<MemorySegment> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        distinct.addAll(pages);
        if (distinct.size() != pages.size()) {
            return "the same page object was handed out twice while live";
        }
        Random random = new Random(seed);
        long[] marks = new long[pages.size()];
        for (int i = 0; i < pages.size(); i++) {
            marks[i] = random.nextLong();
            fill(pages.get(i), size, marks[i]);
        }
        for (int i = 0; i < pages.size(); i++) {
            int lost = firstLost(pages.get(i), size, marks[i]);
            if (lost >= 0) {
                return "page #" + i + " of " + pages.size() + " lost what was written to it at byte " + lost
                        + ": it shares memory with another live page";
            }
        }
        return null;
    }

    /** The mark of the slot at {@code offset} of a page whose own mark is {@code mark}. */
    private static long slotMark(long mark, int offset) {
        return mark ^ (offset * 0x9E3779B97F4A7C15L);
    }

    private static void fill(MemorySegment page, int size, long mark) {
        for (int offset = 0; offset + 8 <= size; offset += 8) {
            page.putLong(offset, slotMark(mark, offset));
        }
    }

    /** The offset of the first slot that lost its mark, or -1. */
    private static int firstLost(MemorySegment page, int size, long mark) {
        for (int offset = 0; offset + 8 <= size; offset += 8) {
            if (page.getLong(offset) != slotMark(mark, offset)) {
                return offset;
            }
        }
        return -1;
    }
}
