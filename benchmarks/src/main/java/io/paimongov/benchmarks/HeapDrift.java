package io.paimongov.benchmarks;

import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.GovernedTableWrite;
import java.lang.management.MemoryPoolMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.paimon.table.FileStoreTable;

/**
 * P2: does the budget hold, and does the accounting match what the writer really keeps on the
 * heap?
 *
 * <p>How: one governed, spilling write (heap provider, so every page is a {@code byte[]} on the
 * heap) of {@code rows} rows into a primary-key table. The accounted side is the write's own
 * metrics: {@code peakReservedBytes} against the budget, and {@code reservedBytes} at each sample.
 * The measured side is a JVM signal, the heap after a full collection: a sampler thread calls
 * {@code System.gc()} every {@code sampleMillis} while the write runs and sums the collection usage
 * of the heap pools ({@link MemoryPoolMXBean#getCollectionUsage()}, what survived that
 * collection), then reads the write's {@code reservedBytes} at once. Subtracting the heap after a
 * collection just before the write opened (after an untimed warm-up write, so Paimon's lazily
 * built classes and caches are already in the baseline) leaves what the write holds. A sampler on
 * its own thread sees the write in every state, flushes and spills included, not only between rows.
 *
 * <p>Why this signal: allocation counters count bytes allocated, most of them garbage within
 * microseconds, so they say nothing about what is held; heap used without a collection is mostly
 * that garbage. The heap after a full collection is exactly the live set, which is what an
 * {@code -Xmx} limit is about. JFR's old-object sampling would attribute it but needs a recording
 * and a parser; the difference of two collections is enough when the write is the only thing that
 * changes.
 *
 * <p>Not thread-safe; one run at a time, and nothing else should run in the JVM meanwhile (its live
 * objects would count as the write's).
 */
public final class HeapDrift {

    /**
     * @param budgetBytes the write's budget
     * @param peakAccountedBytes the write's {@code peakReservedBytes}
     * @param peakHeapBytes the most live heap above the baseline any sample found
     * @param samples samples taken while the write ran
     * @param meanDrift mean over the samples of (heap held - accounted) / accounted
     * @param spillCount spill runs of the write (it must spill for the budget to matter)
     * @param heapLeftAfterCloseBytes live heap above the baseline once the write closed
     */
    public record Result(
            long budgetBytes,
            long peakAccountedBytes,
            long peakHeapBytes,
            int samples,
            double meanDrift,
            long spillCount,
            long heapLeftAfterCloseBytes) {

        /** Peak accounted / budget: at most 1.0 when the budget holds. */
        public double peakOverBudget() {
            return (double) peakAccountedBytes / budgetBytes;
        }

        /**
         * (peak heap held - peak accounted) / peak accounted: negative when the accounting reserves
         * more than the writer keeps, positive when the writer keeps more than it accounted.
         */
        public double heapDrift() {
            return (double) (peakHeapBytes - peakAccountedBytes) / peakAccountedBytes;
        }
    }

    /** One sample: live heap above the baseline, and the write's {@code reservedBytes} read right after. */
    record Sample(long heapBytes, long accountedBytes) {}

    private HeapDrift() {}

    /** One warm-up write and one sampled write of {@code rows} rows under {@code budgetBytes}. */
    public static Result run(Path workDir, int rows, int buckets, int valueBytes, long budgetBytes, long sampleMillis)
            throws Exception {
        return run(workDir, rows, buckets, valueBytes, budgetBytes, sampleMillis, HeapDrift::liveHeapBytes);
    }

    /**
     * {@link #run(Path, int, int, int, long, long)} with the live-heap reading given: what it returns
     * depends on when the collector runs, so a test gives known readings to check what the run
     * makes of them.
     */
    static Result run(Path workDir, int rows, int buckets, int valueBytes, long budgetBytes, long sampleMillis,
            LongSupplier liveHeap) throws Exception {
        write(workDir.resolve("warm-up"), rows / 4, buckets, valueBytes, budgetBytes, null, liveHeap);
        BenchTables.deleteTree(workDir.resolve("warm-up"));
        Sampler sampler = new Sampler(sampleMillis, liveHeap);
        MetricsSnapshot m = write(workDir.resolve("sampled"), rows, buckets, valueBytes, budgetBytes, sampler, liveHeap);
        long after = liveHeap.getAsLong() - sampler.baseline;
        BenchTables.deleteTree(workDir.resolve("sampled"));
        return summarize(budgetBytes, m.peakReservedBytes(), m.spillCount(), sampler.samples, after);
    }

    /** The result of a write's metrics and its samples: peak heap, and the mean drift of the samples that had memory accounted. */
    static Result summarize(long budgetBytes, long peakAccountedBytes, long spillCount, List<Sample> samples,
            long heapLeftAfterCloseBytes) {
        long peakHeap = samples.stream().mapToLong(Sample::heapBytes).max().orElse(0);
        double meanDrift =
                samples.stream()
                        .filter(s -> s.accountedBytes() > 0)
                        .mapToDouble(s -> (double) (s.heapBytes() - s.accountedBytes()) / s.accountedBytes())
                        .average()
                        .orElse(0);
        return new Result(budgetBytes, peakAccountedBytes, peakHeap, samples.size(), meanDrift, spillCount,
                heapLeftAfterCloseBytes);
    }

    private static MetricsSnapshot write(Path dir, int rows, int buckets, int valueBytes, long budgetBytes, Sampler sampler,
            LongSupplier liveHeap) throws Exception {
        FileStoreTable table = BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(buckets));
        BenchTables.Rows generator = new BenchTables.Rows(7, rows, valueBytes);
        if (sampler != null) {
            sampler.baseline = liveHeap.getAsLong();
        }
        GovernedTableWrite write = BenchTables.governedWrite(table, "heap-drift", budgetBytes, dir, Map.of());
        Thread thread = sampler == null ? null : sampler.start(write);
        try (write) {
            for (int i = 0; i < rows; i++) {
                write.write(generator.next());
            }
            write.prepareCommit().commit();
        } finally {
            if (thread != null) {
                sampler.running.set(false);
                thread.join();
            }
        }
        return write.metrics();
    }

    /** Live heap now: a full collection, then what survived it in every heap pool. */
    static long liveHeapBytes() {
        System.gc();
        return LiveHeap.afterLastCollection();
    }

    /**
     * Samples the live heap above {@link #baseline} and the write's accounting until stopped. The
     * samples are read after the sampling thread was joined.
     */
    private static final class Sampler {
        private final List<Sample> samples = new ArrayList<>();
        private final long everyMillis;
        private final LongSupplier liveHeap;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private volatile long baseline;

        Sampler(long everyMillis, LongSupplier liveHeap) {
            this.everyMillis = everyMillis;
            this.liveHeap = liveHeap;
        }

        Thread start(GovernedTableWrite write) {
            Thread t = new Thread(() -> loop(write), "heap-drift-sampler");
            t.setDaemon(true);
            t.start();
            return t;
        }

        private void loop(GovernedTableWrite write) {
            while (running.get()) {
                long heap = liveHeap.getAsLong() - baseline;
                long accounted = write.metrics().reservedBytes();
                if (running.get()) {
                    samples.add(new Sample(heap, accounted));
                }
                try {
                    Thread.sleep(everyMillis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
