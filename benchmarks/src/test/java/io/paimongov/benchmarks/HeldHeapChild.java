package io.paimongov.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * A child JVM for {@link LiveHeapSamplerTest}: {@code HELD_BYTES EVERY_MILLIS STEP_BYTES
 * LEAST_BYTES}. It takes
 * its baseline ({@link LiveHeap#settled}), starts a {@link LiveHeapSampler}, makes garbage, then
 * holds {@code HELD_BYTES} in 1 MiB arrays while it keeps making garbage, until the sampler read a
 * live heap at least {@code LEAST_BYTES} above the baseline (or 60 s passed: then it says so and
 * exits 1), drops them and prints {@code HELD peak=P baseline=B samples=N own=O}.
 * Which of the sampler's rules takes that collection depends on the arguments: a short period for
 * the periodic one, an endless period and a small step for the one at old-generation highs.
 */
public final class HeldHeapChild {

    private static final int MIB = 1 << 20;
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        long held = Long.parseLong(args[0]);
        long every = Long.parseLong(args[1]);
        long step = Long.parseLong(args[2]);
        long least = Long.parseLong(args[3]);
        long baseline = LiveHeap.settled();
        LiveHeapSampler sampler = new LiveHeapSampler(every, step, null);
        // Read before the sampler listens: only this thread allocates in between, too little for a full collection.
        long fullAtStart = fullCollections();
        sampler.start();
        churn(64L * MIB);
        List<byte[]> block = new ArrayList<>();
        for (long b = 0; b < held; b += MIB) {
            block.add(new byte[MIB]);
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        // Held until the sampler has read a live heap holding the block: its rule may collect while
        // the arrays are still being allocated or just after the last one, and a child that waited
        // for a collection beginning after the block (which it cannot see) could wait forever, as one
        // that stopped at the first partial reading judged a part of the block. A sampler whose rule
        // never collects with the block held, or never reads the collection, times out here.
        while (sampler.peakBytes() - baseline < least) {
            if (System.nanoTime() > deadline) {
                System.out.println("NOT_SAMPLED no full collection read in 60 s while the block was held: full collections "
                        + (fullCollections() - fullAtStart) + ", read " + sampler.samples() + ", peak above the baseline "
                        + (sampler.peakBytes() - baseline));
                System.exit(1);
            }
            churn(MIB);
            Thread.sleep(1);
        }
        sink = block.size();
        block = null;
        sampler.stop();
        System.out.println("HELD peak=" + sampler.peakBytes() + " baseline=" + baseline + " samples=" + sampler.samples() + " own="
                + sampler.ownCollections());
        System.exit(0);
    }

    /** Short-lived garbage: objects that die young. */
    private static void churn(long bytes) {
        for (long b = 0; b < bytes; b += 4096) {
            sink = new byte[4096];
        }
    }

    /** Full collections so far: the old generation's collector (the serial collector's MarkSweepCompact). */
    private static long fullCollections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (!gc.getName().equals("Copy")) {
                n += gc.getCollectionCount();
            }
        }
        return n;
    }
}
