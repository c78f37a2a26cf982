package io.paimongov.benchmarks;

import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.paimon.table.FileStoreTable;

/**
 * P2: does the budget hold on the heap, and how does the accounting compare with what the writer
 * really keeps there?
 *
 * <p>How: one governed, spilling write (heap provider, so every page is a {@code byte[]} on the
 * heap) of {@code rows} rows into a primary-key table, in a child JVM of its own ({@link ChildJvm}:
 * the serial collector, {@code -Xmx} = {@value #HEAP_BYTES} bytes, room to spare, so the peak is
 * the write's and not the heap's). The bound is judged from outside the accounting: a {@link
 * LiveHeapSampler} reads the live heap after every full collection while the write runs (the JVM's
 * own, one every {@code sampleMillis}, one at each old-generation high, one after the last row),
 * and the live heap before the write opened (settled, after an untimed warm-up write of a quarter
 * of the rows, so Paimon's lazily built classes and caches are in it) is subtracted. At each reading
 * the child also reads the write's {@code reservedBytes}, for the drift. The accounted side, the
 * write's {@code peakReservedBytes}, is reported beside it as the runtime's own figure.
 *
 * <p>Why this signal: allocation counters count bytes allocated, most of them garbage within
 * microseconds; heap used without a collection is mostly that garbage. The heap after a full
 * collection is exactly the live set, which is what an {@code -Xmx} limit is about; in a JVM of its
 * own, nothing but the write changes it.
 *
 * <p>The child prints a line {@code P2_SAMPLE heap accounted} per reading and one {@code P2
 * key=value ...} at the end; {@link #run} reads them. Not thread-safe; one run at a time.
 */
public final class HeapDrift {

    /** The child's heap: the write's live set and its garbage fit many times over. */
    static final long HEAP_BYTES = 256L << 20;
    static final long TIMEOUT_SECONDS = 600;
    static final String SAMPLE = "P2_SAMPLE";
    static final String RESULT = "P2";

    /**
     * @param budgetBytes the write's budget
     * @param peakAccountedBytes the write's {@code peakReservedBytes}
     * @param peakHeapBytes the most live heap above the baseline any full collection found
     * @param samples full collections read while the write ran
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

        /** Peak live heap held by the write / budget: the bound, measured from outside; at most 1.0 when the budget holds. */
        public double heapPeakOverBudget() {
            return (double) peakHeapBytes / budgetBytes;
        }

        /** Peak accounted / budget: the runtime's own figure, at most 1.0 by construction. */
        public double accountedPeakOverBudget() {
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

    /** One reading: live heap above the baseline, and the write's {@code reservedBytes} read right after. */
    record Sample(long heapBytes, long accountedBytes) {}

    private HeapDrift() {}

    /**
     * Runs the warm-up and the sampled write of {@code rows} rows under {@code budgetBytes} in a
     * child JVM, with its warehouse and spill under {@code workDir} (removed after).
     *
     * @throws IllegalStateException with the child's output when it did not end with its result
     */
    public static Result run(Path workDir, int rows, int buckets, int valueBytes, long budgetBytes, long sampleMillis)
            throws Exception {
        ChildJvm.Ended ended = ChildJvm.run(workDir, HEAP_BYTES, TIMEOUT_SECONDS, HeapDrift.class, List.of(
                workDir.resolve("child").toString(), Integer.toString(rows), Integer.toString(buckets), Integer.toString(valueBytes),
                Long.toString(budgetBytes), Long.toString(sampleMillis)));
        BenchTables.deleteTree(workDir);
        return read(ended);
    }

    /** The result of a child's output. */
    static Result read(ChildJvm.Ended ended) {
        List<Sample> samples = new ArrayList<>();
        Map<String, Long> values = null;
        for (String line : ended.output().lines().toList()) {
            String[] parts = line.trim().split(" ");
            if (parts[0].equals(SAMPLE) && parts.length == 3) {
                samples.add(new Sample(Long.parseLong(parts[1]), Long.parseLong(parts[2])));
            } else if (parts[0].equals(RESULT)) {
                values = new HashMap<>();
                for (int i = 1; i < parts.length; i++) {
                    String[] kv = parts[i].split("=", 2);
                    values.put(kv[0], Long.parseLong(kv[1]));
                }
            }
        }
        if (ended.timedOut() || ended.exitCode() != 0 || values == null) {
            throw new IllegalStateException("the P2 child did not report (exit " + ended.exitCode() + (ended.timedOut() ? ", timed out" : "")
                    + "): " + ended.tail(20));
        }
        return summarize(values.get("budgetBytes"), values.get("peakAccountedBytes"), values.get("spillCount"), samples,
                values.get("heapLeftAfterCloseBytes"));
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

    /** The child: {@code WORK_DIR ROWS BUCKETS VALUE_BYTES BUDGET_BYTES SAMPLE_MILLIS}. */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int rows = Integer.parseInt(args[1]);
        int buckets = Integer.parseInt(args[2]);
        int valueBytes = Integer.parseInt(args[3]);
        long budget = Long.parseLong(args[4]);
        long sampleMillis = Long.parseLong(args[5]);
        write(dir.resolve("warm-up"), rows / 4, buckets, valueBytes, budget, null);
        BenchTables.deleteTree(dir.resolve("warm-up"));
        List<Sample> samples = new ArrayList<>();
        AtomicLong baseline = new AtomicLong();
        AtomicReference<GovernedTableWrite> current = new AtomicReference<>();
        LiveHeapSampler sampler = new LiveHeapSampler(sampleMillis, budget / 32, live -> {
            GovernedTableWrite w = current.get();
            synchronized (samples) {
                samples.add(new Sample(live - baseline.get(), w == null ? 0 : w.metrics().reservedBytes()));
            }
        });
        MetricsSnapshot m = write(dir.resolve("sampled"), rows, buckets, valueBytes, budget, new Sampled(sampler, current, baseline));
        long after = LiveHeap.settled() - baseline.get();
        BenchTables.deleteTree(dir.resolve("sampled"));
        synchronized (samples) {
            for (Sample s : samples) {
                System.out.println(SAMPLE + " " + s.heapBytes() + " " + s.accountedBytes());
            }
        }
        System.out.println(RESULT + " budgetBytes=" + budget + " peakAccountedBytes=" + m.peakReservedBytes() + " spillCount="
                + m.spillCount() + " heapLeftAfterCloseBytes=" + after);
        System.out.flush();
        System.exit(0);
    }

    /** What the sampled write needs: the sampler, where to put the open write, where to put the baseline. */
    private record Sampled(LiveHeapSampler sampler, AtomicReference<GovernedTableWrite> current, AtomicLong baseline) {}

    private static MetricsSnapshot write(Path dir, int rows, int buckets, int valueBytes, long budgetBytes, Sampled sampled)
            throws Exception {
        FileStoreTable table = BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(buckets));
        BenchTables.Rows generator = new BenchTables.Rows(7, rows, valueBytes);
        if (sampled != null) {
            sampled.baseline().set(LiveHeap.settled());
            sampled.sampler().start();
        }
        GovernedTableWrite write = BenchTables.governedWrite(table, "heap-drift", budgetBytes, dir, Map.of());
        try (write) {
            if (sampled != null) {
                sampled.current().set(write);
            }
            for (int i = 0; i < rows; i++) {
                write.write(generator.next());
            }
            if (sampled != null) {
                sampled.sampler().sampleNow();
            }
            write.prepareCommit().commit();
        } finally {
            if (sampled != null) {
                sampled.sampler().stop();
                sampled.current().set(null);
            }
        }
        return write.metrics();
    }
}
