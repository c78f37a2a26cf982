package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * MEM-15's checks: releases on an interrupted thread. The runtime releases on threads that are
 * interrupted: it interrupts the compaction threads of a cancelled write, and their reservations
 * go back on those threads; an engine may interrupt the task thread that then runs the cleanup.
 * So the kit interrupts the rule's own thread before each release (pages, bytes, and a close with
 * both still held), and keeps interrupting it from another thread while it takes and gives back
 * pages and bytes over and over. Every release must give its memory back to the engine at once,
 * and the thread must still be interrupted afterwards.
 *
 * <p>Stateless; runs on the rule's thread, whose interrupt status it clears before it returns.
 */
final class InterruptedRelease {

    /** Releases under fire that must be seen interrupted while they ran, unless {@link #MAX_CYCLES} ran first. */
    static final int HITS = 32;
    /** The most take-and-give-back cycles under fire. */
    static final int MAX_CYCLES = 5_000;
    /** Pages given back in one call under fire: a longer call for the interrupter to land in. */
    static final int BATCH = 16;
    static final long RESERVED = 100_000;

    private InterruptedRelease() {}

    /** What the interrupter saw, for the rule's report. */
    static String run(TckSubject s) {
        try {
            return releases(s);
        } finally {
            Thread.interrupted();
        }
    }

    private static String releases(TckSubject s) {
        EngineResources resources = s.open();
        SegmentAllocator allocator = resources.memory();
        long page = allocator.pageSize();
        List<MemorySegment> pages = new ArrayList<>();
        allocator.allocate(pages, 4);
        check(Rule.MEM_15, allocator.tryReserve(RESERVED), "tryReserve(" + RESERVED + ") was refused on an allocator holding 4 pages");

        released(s, allocator, "release(2 pages)", () -> allocator.release(new ArrayList<>(pages.subList(0, 2))), 2 * page);
        pages.subList(0, 2).clear();
        released(s, allocator, "release(40000 bytes)", () -> allocator.release(40_000), 40_000);

        String underFire = underFire(s, allocator);

        long held = allocator.usedBytes();
        Thread.currentThread().interrupt();
        boolean stillInterrupted;
        try {
            resources.close();
        } catch (IllegalStateException leakReported) {
            // EngineResources.close() may report what was still held, after releasing it (RES.4).
        } finally {
            stillInterrupted = Thread.interrupted();
        }
        s.checkEngineBack(Rule.MEM_15, "close() on an interrupted thread, with " + held + " bytes still held");
        check(Rule.MEM_15, stillInterrupted, "close() cleared the thread's interrupt status");
        return underFire;
    }

    /**
     * Runs {@code release} with the thread interrupted and checks that it gave back {@code bytes},
     * in the allocator and in the engine, and left the thread interrupted.
     */
    private static void released(TckSubject s, SegmentAllocator allocator, String what, Runnable release, long bytes) {
        long used = allocator.usedBytes();
        long engine = s.engine.engineUsedBytes();
        Thread.currentThread().interrupt();
        boolean stillInterrupted;
        try {
            release.run();
        } catch (RuntimeException e) {
            throw new AssertionError(Rule.MEM_15.fail(what + " on an interrupted thread threw " + ThreadStacks.causes(e)), e);
        } finally {
            stillInterrupted = Thread.interrupted();
        }
        given(s, allocator, what + " on an interrupted thread", used, engine, bytes);
        check(Rule.MEM_15, stillInterrupted, what + " cleared the thread's interrupt status");
    }

    /**
     * Takes a page and a reservation and gives them back, over and over, while a kit thread
     * interrupts this one as fast as it can; each release must give back its bytes. The interrupt
     * status is cleared right before each release, so a release that returns with it set was
     * interrupted while it ran. The cycles go on until {@link #HITS} releases were, or {@link
     * #MAX_CYCLES} ran (the interrupter may not get a core often enough on a busy machine: what
     * the releases on an interrupted thread must do was checked above in any case).
     *
     * @return what the interrupter hit
     */
    private static String underFire(TckSubject s, SegmentAllocator allocator) {
        long page = allocator.pageSize();
        Interrupter interrupter = new Interrupter(Thread.currentThread());
        interrupter.start();
        int hits = 0;
        int releases = 0;
        try {
            // Starts once the interrupter fires: its first shot shows in this thread's status.
            while (!Thread.interrupted()) {
                Thread.onSpinWait();
            }
            for (int cycle = 0; cycle < MAX_CYCLES && hits < HITS; cycle++) {
                List<MemorySegment> pages = new ArrayList<>(BATCH);
                for (int i = 0; i < BATCH; i++) {
                    allocator.allocate(pages, 1);
                }
                check(Rule.MEM_15, allocator.tryReserve(1000), "tryReserve(1000) was refused with " + allocator.usedBytes() + " bytes taken");
                hits += fired(s, allocator, "release(" + BATCH + " pages) while another thread interrupts", () -> allocator.release(pages),
                        BATCH * page);
                hits += fired(s, allocator, "release(1000 bytes) while another thread interrupts", () -> allocator.release(1000), 1000);
                releases += 2;
            }
        } finally {
            interrupter.stopFiring();
            Thread.interrupted();
        }
        return hits + " of " + releases + " releases under fire were interrupted while they ran";
    }

    private static int fired(TckSubject s, SegmentAllocator allocator, String what, Runnable release, long bytes) {
        long used = allocator.usedBytes();
        long engine = s.engine.engineUsedBytes();
        Thread.interrupted();
        try {
            release.run();
        } catch (RuntimeException e) {
            throw new AssertionError(Rule.MEM_15.fail(what + " threw " + ThreadStacks.causes(e)), e);
        }
        int hit = Thread.interrupted() ? 1 : 0;
        given(s, allocator, what, used, engine, bytes);
        return hit;
    }

    /** The allocator's and the engine's counters went down by {@code bytes} from {@code used} and {@code engine}. */
    private static void given(TckSubject s, SegmentAllocator allocator, String what, long used, long engine, long bytes) {
        long usedNow = allocator.usedBytes();
        check(Rule.MEM_15, usedNow == used - bytes,
                what + " gave back " + (used - usedNow) + " of " + bytes + " bytes (usedBytes() went from " + used + " to " + usedNow + ")");
        long engineNow = s.engine.engineUsedBytes();
        check(Rule.MEM_15, engineNow == engine - bytes,
                what + " gave the engine back " + (engine - engineNow) + " of " + bytes + " bytes (its counter went from " + engine + " to "
                        + engineNow + ")");
    }

    /** A kit thread that interrupts {@code target} over and over until told to stop. */
    private static final class Interrupter extends Thread {
        private final Thread target;
        private volatile boolean firing = true;

        Interrupter(Thread target) {
            super("tck-mem15-interrupter");
            this.target = target;
            setDaemon(true);
        }

        @Override
        public void run() {
            for (long shots = 1; firing; shots++) {
                target.interrupt();
                if ((shots & 0xFF) == 0) {
                    // Now and then leaves the core, for a machine with fewer cores than busy threads.
                    Thread.yield();
                }
            }
        }

        void stopFiring() {
            firing = false;
            // The join itself may be interrupted by the last shots: wait until the thread is gone.
            while (isAlive()) {
                try {
                    join();
                } catch (InterruptedException lastShot) {
                    // fired before the flag was seen; the interrupter ends at its next look
                }
            }
        }
    }
}
