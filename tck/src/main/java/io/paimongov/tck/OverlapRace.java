package io.paimongov.tck;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.paimon.memory.MemorySegment;

/*
 * Why it is shaped this way. MEM-2 races as many workers as there are cores for the last unit
 * below the capacity, so all but one of them are refused and their calls do little; on 2 cores
 * two workers seldom are inside the allocator at the same moment. Unsafe bookkeeping of live
 * pages (a plain HashSet or ArrayList) breaks only when two threads change it at once, and a
 * fresh set breaks most easily while it grows. So here the workers outnumber the cores (the
 * scheduler then preempts threads inside their calls, whatever the machine), every request fits
 * (each worker may hold a share of half the capacity), and every round is a fresh write whose
 * page set grows from empty. Whether calls really overlapped is not assumed but counted: a
 * worker that enters allocate, tryReserve or release while another worker is between entering
 * and leaving one of them is one overlap. Rounds go on until enough overlaps were seen.
 */
/**
 * MEM-16's race with room to spare: {@link #workersForThisMachine()} workers take and give back
 * pages and byte reservations at random on one write's allocator, each holding at most its share
 * of half the capacity, so no request needs to be refused; each round is a fresh write (opened,
 * raced on, everything given back, closed). After every round {@code usedBytes()} must be 0 and the
 * engine's counter back where it was before the write opened; a page carries its worker's stamp
 * while held, checked before it is given back; no call may throw anything but the SPI's refusal.
 *
 * <p>One race per instance; not thread-safe itself (its workers are its own threads).
 */
final class OverlapRace {

    /** Calls of each worker in one round. */
    static final int CALLS_PER_ROUND = 400;
    /** How long the kit waits for a round's workers before the round is declared hung. */
    static final long ROUND_TIMEOUT_MILLIS = TimeUnit.SECONDS.toMillis(30);

    private final TckSubject subject;
    private final int workers;
    private final int minRounds;
    private final int maxRounds;
    private final long requiredOverlaps;
    private final long seed;
    private final AtomicInteger inside = new AtomicInteger();
    private final LongAdder overlaps = new LongAdder();
    private final LongAdder calls = new LongAdder();
    private final LongAdder refusals = new LongAdder();
    private final AtomicReference<String> violation = new AtomicReference<>();
    private int rounds;

    /**
     * @param workers worker threads, at least 2
     * @param minRounds rounds run whatever the overlaps, at least 1
     * @param requiredOverlaps overlaps to see; rounds go on, up to ten times {@code minRounds}, until they were
     */
    OverlapRace(TckSubject subject, int workers, int minRounds, long requiredOverlaps, long seed) {
        if (workers < 2 || minRounds < 1) {
            throw new IllegalArgumentException("a race needs at least 2 workers and 1 round: " + workers + ", " + minRounds);
        }
        this.subject = subject;
        this.workers = workers;
        this.minRounds = minRounds;
        this.maxRounds = (int) Math.min(Integer.MAX_VALUE, 10L * minRounds);
        this.requiredOverlaps = requiredOverlaps;
        this.seed = seed;
    }

    /** More workers than the machine has cores: twice its cores, from 4 to 16. */
    static int workersForThisMachine() {
        return Math.max(4, Math.min(16, 2 * Runtime.getRuntime().availableProcessors()));
    }

    /**
     * Runs rounds until {@code minRounds} ran and the overlaps seen reach {@code requiredOverlaps},
     * or {@code 10 x minRounds} ran; the first violation, or null when there was none (then {@link
     * #shortOfOverlaps()} says whether the rounds overlapped enough to judge).
     *
     * @throws InterruptedException when the calling thread is interrupted while a round runs
     */
    String run() throws InterruptedException {
        while (violation.get() == null && (rounds < minRounds || (overlaps.sum() < requiredOverlaps && rounds < maxRounds))) {
            round(rounds++);
        }
        return violation.get();
    }

    /**
     * Why the rounds cannot be judged, or null: fewer overlaps than required after the most rounds
     * (a machine whose cores were too busy, or too few, to run the workers at once).
     */
    String shortOfOverlaps() {
        if (overlaps.sum() >= requiredOverlaps) {
            return null;
        }
        return "only " + overlaps.sum() + " of " + calls.sum() + " calls overlapped another in " + rounds + " rounds of " + workers
                + " workers on " + Runtime.getRuntime().availableProcessors() + " cores, fewer than the " + requiredOverlaps + " required ("
                + TckSettings.OVERLAPS + "): the kit could not make the allocator's calls overlap on this machine; run it where more"
                + " cores are free, or raise " + TckSettings.OVERLAP_ROUNDS;
    }

    /** What the race saw, for the rule's report: overlaps, calls, rounds, workers, cores, refusals. */
    String summary() {
        return overlaps.sum() + " overlapping calls of " + calls.sum() + " in " + rounds + " rounds of " + workers + " workers on "
                + Runtime.getRuntime().availableProcessors() + " cores; " + refusals.sum() + " refusals";
    }

    private void round(int round) throws InterruptedException {
        long engineBefore = subject.engine.engineUsedBytes();
        EngineResources resources = subject.open();
        SegmentAllocator allocator = resources.memory();
        int unit = allocator.pageSize();
        int share = (int) Math.max(2, Math.min(16, allocator.capacityBytes() / 2 / unit / workers));
        AtomicInteger ready = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            Worker worker = new Worker(allocator, unit, share, w, new SplittableRandom(seed + 31L * round + w), ready);
            Thread t = new Thread(worker, "tck-mem16-" + w);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        try {
            if (joined(threads, round) && violation.get() == null) {
                check(allocator, engineBefore, round);
            }
        } finally {
            try {
                resources.close();
            } catch (RuntimeException e) {
                // A close that reports memory still held: the checks above said what was lost first.
                fail("closing the write after round " + (round + 1) + " threw " + ThreadStacks.causes(e));
            }
        }
    }

    /** Whether every worker of the round ended in time; a violation names the first that did not. */
    private boolean joined(List<Thread> threads, int round) throws InterruptedException {
        long deadline = System.currentTimeMillis() + ROUND_TIMEOUT_MILLIS;
        for (Thread t : threads) {
            t.join(Math.max(1, deadline - System.currentTimeMillis()));
            if (t.isAlive()) {
                fail("in round " + (round + 1) + ", " + t.getName() + " did not finish within " + ROUND_TIMEOUT_MILLIS / 1000
                        + " s: it is blocked in the allocator or the engine, or loops in a corrupted page set");
                return false;
            }
        }
        return true;
    }

    /** With every page and reservation given back: nothing held, the engine where it was. */
    private void check(SegmentAllocator allocator, long engineBefore, int round) {
        long used = allocator.usedBytes();
        if (used != 0) {
            fail("after round " + (round + 1) + " usedBytes() is " + used + " with every page and reservation given back: a release was lost"
                    + " or a grant counted twice under concurrency (" + overlaps.sum() + " overlapping calls so far)");
        }
        long engine = subject.engine.engineUsedBytes();
        if (engine != engineBefore) {
            fail("after round " + (round + 1) + " the engine counter is " + engine + " with every page and reservation given back; it was "
                    + engineBefore + " before the write opened (" + overlaps.sum() + " overlapping calls so far)");
        }
    }

    private void fail(String what) {
        violation.compareAndSet(null, what);
    }

    /** Counts the call and, when another worker is inside a call, an overlap. */
    private void enter() {
        calls.increment();
        if (inside.getAndIncrement() > 0) {
            overlaps.increment();
        }
    }

    private void exit() {
        inside.decrementAndGet();
    }

    /** One worker: random takes and gives up to its share, then gives back everything it holds. */
    private final class Worker implements Runnable {
        private final SegmentAllocator allocator;
        private final int unit;
        private final int share;
        private final int id;
        private final SplittableRandom random;
        private final AtomicInteger ready;
        private final List<MemorySegment> pages = new ArrayList<>();
        private final List<Long> stamps = new ArrayList<>();
        private int reserved;
        private long stampCounter;

        Worker(SegmentAllocator allocator, int unit, int share, int id, SplittableRandom random, AtomicInteger ready) {
            this.allocator = allocator;
            this.unit = unit;
            this.share = share;
            this.id = id;
            this.random = random;
            this.ready = ready;
        }

        @Override
        public void run() {
            try {
                // Leave together: a worker that started early would finish its round alone.
                ready.incrementAndGet();
                while (ready.get() < workers && violation.get() == null) {
                    Thread.onSpinWait();
                }
                for (int i = 0; i < CALLS_PER_ROUND && violation.get() == null; i++) {
                    int held = pages.size() + reserved;
                    if (held > 0 && (held == share || random.nextBoolean())) {
                        giveOne();
                    } else {
                        takeOne();
                    }
                }
                while (!pages.isEmpty() || reserved > 0) {
                    giveOne();
                }
            } catch (Throwable t) {
                fail(Thread.currentThread().getName() + " threw " + ThreadStacks.causes(t)
                        + " (only ResourceExhaustedException from allocate means no memory)");
            }
        }

        private void takeOne() {
            if (random.nextBoolean()) {
                List<MemorySegment> target = new ArrayList<>(1);
                enter();
                try {
                    allocator.allocate(target, 1);
                } catch (ResourceExhaustedException e) {
                    refusals.increment();
                    return;
                } finally {
                    exit();
                }
                if (target.size() != 1) {
                    fail("allocate(1) gave " + target.size() + " pages");
                    return;
                }
                long stamp = ((long) id << 48) | stampCounter++;
                stamp(target.get(0), stamp);
                pages.add(target.get(0));
                stamps.add(stamp);
            } else {
                boolean granted;
                enter();
                try {
                    granted = allocator.tryReserve(unit);
                } finally {
                    exit();
                }
                if (granted) {
                    reserved++;
                } else {
                    refusals.increment();
                }
            }
        }

        private void giveOne() {
            if (!pages.isEmpty() && (reserved == 0 || random.nextBoolean())) {
                int i = random.nextInt(pages.size());
                MemorySegment page = pages.remove(i);
                long stamp = stamps.remove(i);
                if (!stamped(page, stamp)) {
                    fail(Thread.currentThread().getName() + " found another worker's marks on a page it held: the page was handed to two"
                            + " workers at once");
                }
                enter();
                try {
                    allocator.release(List.of(page));
                } finally {
                    exit();
                }
            } else {
                reserved--;
                enter();
                try {
                    allocator.release((long) unit);
                } finally {
                    exit();
                }
            }
        }

        private void stamp(MemorySegment page, long stamp) {
            page.putLong(0, stamp);
            page.putLong(unit / 2, ~stamp);
            page.putLong(unit - 8, stamp ^ 0x5DEECE66DL);
        }

        private boolean stamped(MemorySegment page, long stamp) {
            return page.getLong(0) == stamp && page.getLong(unit / 2) == ~stamp && page.getLong(unit - 8) == (stamp ^ 0x5DEECE66DL);
        }
    }
}
