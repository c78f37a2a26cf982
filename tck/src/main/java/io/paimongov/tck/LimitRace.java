package io.paimongov.tck;

import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.paimon.memory.MemorySegment;

/*
 * Why it is shaped this way. A check-then-act allocator (read the used bytes, compare, then add)
 * passes its capacity only when two threads read the same used bytes before either adds: a window
 * of some nanoseconds. Threads woken by a blocking barrier start tens of microseconds apart and
 * almost never meet in it; threads that spin on one volatile word leave together, within the
 * time a cache line takes to travel. So the workers are as many as the machine has cores (at
 * most 4; at least 2), meet at a spinning barrier before every step, and race for the last units
 * below the capacity: the kit holds all but (threads - 1) units itself, so every round asks for
 * one unit more than fits. The barrier's last arrival checks the invariants while the others
 * wait, so they are checked at every step, between the races, never during them.
 */
/**
 * MEM-2's race at the limit: {@code threads} workers, started together at every step, reserve or
 * allocate the last units below the allocator's capacity, hold them, and release them together or
 * at random moments while the others take theirs. Checked at every step, by the barrier's last
 * arrival: what the workers hold never passes what fits, {@code usedBytes()} is exactly what is
 * held (no update lost to a race), the engine's own counter never passes its budget; after the
 * race everything is back at the start. A worker that throws anything but the SPI's refusal fails
 * the rule.
 *
 * <p>One race per instance; not thread-safe itself (its workers are its own threads).
 */
final class LimitRace {

    /**
     * How long a worker waits at a barrier for the others before the race is declared hung: long
     * enough that a machine loaded many times over its cores never trips it (30 s did, once, at a
     * load of 16 on 2 cores), and with the final joins (twice this) within MEM-2's own time limit
     * of 240 s, so a blocked allocator is reported by the race, with its reason, before the runner's
     * time-out.
     */
    static final long STEP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(100);

    private final SegmentAllocator allocator;
    private final TckSubject subject;
    private final int threads;
    private final int rounds;
    private final long seed;
    private final int unit;
    private final long base;
    private final SpinBarrier barrier;
    /** Units the workers hold: counted after a grant and before a release, so never above what the allocator holds for them. */
    private final AtomicLong held = new AtomicLong();
    private final AtomicReference<String> violation = new AtomicReference<>();
    private long engineBase;

    /**
     * @param threads workers, at least 2
     * @param rounds steps of the race, at least 1
     * @param seed the workers' random pauses and choices
     */
    LimitRace(SegmentAllocator allocator, TckSubject subject, int threads, int rounds, long seed) {
        if (threads < 2 || rounds < 1) {
            throw new IllegalArgumentException("a race needs at least 2 threads and 1 round: " + threads + ", " + rounds);
        }
        this.allocator = allocator;
        this.subject = subject;
        this.threads = threads;
        this.rounds = rounds;
        this.seed = seed;
        this.unit = allocator.pageSize();
        this.base = allocator.capacityBytes() - (long) (threads - 1) * unit;
        this.barrier = new SpinBarrier(threads, this::checkStep);
    }

    /** The workers a race takes on this machine: its cores, from 2 to 4. */
    static int threadsForThisMachine() {
        return Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
    }

    /**
     * Runs the race and returns the first violation seen, or null when there was none.
     *
     * @throws InterruptedException when the calling thread is interrupted while the workers run
     */
    String run() throws InterruptedException {
        if (base < 0) {
            return "capacityBytes() " + allocator.capacityBytes() + " holds fewer than " + (threads - 1) + " pages of " + unit + " bytes";
        }
        if (!allocator.tryReserve(base)) {
            return "tryReserve(" + base + ") was refused on an empty allocator of capacity " + allocator.capacityBytes();
        }
        engineBase = subject.engine.engineUsedBytes();
        try {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                SplittableRandom random = new SplittableRandom(seed + t);
                Thread worker = new Thread(() -> work(random), "tck-mem2-" + t);
                worker.setDaemon(true);
                workers.add(worker);
            }
            workers.forEach(Thread::start);
            for (Thread w : workers) {
                w.join(TimeUnit.NANOSECONDS.toMillis(STEP_TIMEOUT_NANOS) * 2);
                if (w.isAlive()) {
                    fail(w.getName() + " did not finish: it is blocked in the allocator or in the engine");
                    barrier.breakAll();
                }
            }
        } finally {
            allocator.release(base);
        }
        return violation.get();
    }

    private void work(SplittableRandom random) {
        List<MemorySegment> pages = new ArrayList<>();
        try {
            for (int r = 0; r < rounds && violation.get() == null; r++) {
                if (!barrier.await()) {
                    return;
                }
                int kind = r % 3;
                if (kind < 2) {
                    // Everyone asks for one unit at the same moment; one of them cannot have it.
                    boolean page = kind == 1;
                    boolean granted = grab(page, pages);
                    if (!barrier.await()) {
                        release(granted, page, pages);
                        return;
                    }
                    release(granted, page, pages);
                } else {
                    // Takes and releases at random moments, against the others doing the same.
                    for (int i = 0; i < 4; i++) {
                        boolean page = random.nextBoolean();
                        boolean granted = grab(page, pages);
                        pause(random);
                        release(granted, page, pages);
                        pause(random);
                    }
                }
                if (!barrier.await()) {
                    return;
                }
            }
        } catch (Throwable t) {
            fail(Thread.currentThread().getName() + " threw " + t + " (only ResourceExhaustedException from allocate means no memory)");
            barrier.breakAll();
        }
    }

    private boolean grab(boolean page, List<MemorySegment> pages) {
        boolean granted;
        if (page) {
            try {
                allocator.allocate(pages, 1);
                granted = true;
            } catch (ResourceExhaustedException e) {
                if (!pages.isEmpty()) {
                    fail("a refused allocate(1) still added " + pages.size() + " pages to the target");
                }
                granted = false;
            }
        } else {
            granted = allocator.tryReserve(unit);
        }
        if (granted) {
            long now = held.incrementAndGet();
            if (now > threads - 1) {
                fail("the workers hold " + now + " units of " + unit + " bytes where " + (threads - 1)
                        + " fit: " + (page ? "allocate" : "tryReserve") + " granted past the capacity " + allocator.capacityBytes());
            }
        }
        return granted;
    }

    private void release(boolean granted, boolean page, List<MemorySegment> pages) {
        if (!granted) {
            return;
        }
        held.decrementAndGet();
        if (page) {
            List<MemorySegment> given = new ArrayList<>(pages);
            pages.clear();
            allocator.release(given);
        } else {
            allocator.release(unit);
        }
    }

    private static void pause(SplittableRandom random) {
        for (int i = random.nextInt(64); i > 0; i--) {
            Thread.onSpinWait();
        }
    }

    /** Run by the last worker to arrive at each barrier, the others waiting. */
    private void checkStep() {
        long workers = held.get();
        long used = allocator.usedBytes();
        long expected = base + workers * unit;
        if (used != expected) {
            fail("usedBytes() is " + used + " where the kit holds " + base + " and the workers " + workers + " units of " + unit
                    + " bytes (" + expected + "): an update was lost or doubled under concurrency");
        }
        if (used > allocator.capacityBytes()) {
            fail("usedBytes() " + used + " passed the capacity " + allocator.capacityBytes() + " under concurrency");
        }
        long engine = subject.engine.engineUsedBytes() - subject.engineStart;
        if (engine > subject.budgetBytes) {
            fail("the engine counter rose by " + engine + ", past its budget " + subject.budgetBytes);
        }
        if (workers == 0 && subject.engine.engineUsedBytes() != engineBase) {
            fail("the engine counter is " + subject.engine.engineUsedBytes() + " with every unit given back; it was " + engineBase
                    + " with only the kit's reservation held");
        }
    }

    private void fail(String what) {
        violation.compareAndSet(null, what);
    }

    /**
     * A barrier whose waiters spin, so that they leave it together; its last arrival runs the
     * step check before the others go. Breaks (every await returns false) when a party does not
     * come within {@link #STEP_TIMEOUT_NANOS} or someone calls {@link #breakAll()}.
     */
    private final class SpinBarrier {
        private final int parties;
        private final Runnable atStep;
        private final AtomicInteger arrived = new AtomicInteger();
        private volatile int generation;
        private volatile boolean broken;

        SpinBarrier(int parties, Runnable atStep) {
            this.parties = parties;
            this.atStep = atStep;
        }

        boolean await() {
            int g = generation;
            if (arrived.incrementAndGet() == parties) {
                arrived.set(0);
                atStep.run();
                if (violation.get() != null) {
                    broken = true;
                }
                generation = g + 1;
                return !broken;
            }
            long deadline = System.nanoTime() + STEP_TIMEOUT_NANOS;
            for (long spins = 1; generation == g; spins++) {
                if (broken) {
                    return false;
                }
                Thread.onSpinWait();
                if ((spins & 0x3FF) == 0) {
                    if (System.nanoTime() > deadline) {
                        fail("a worker did not reach the next step within " + TimeUnit.NANOSECONDS.toSeconds(STEP_TIMEOUT_NANOS)
                                + " s: it is blocked in the allocator or in the engine");
                        broken = true;
                        return false;
                    }
                    if (spins > 10_000) {
                        // Tens of microseconds without the others: more runnable threads than
                        // free cores (a loaded machine), so let them run instead of spinning.
                        Thread.yield();
                    }
                }
            }
            return !broken;
        }

        void breakAll() {
            broken = true;
        }
    }
}
