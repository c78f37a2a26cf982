package io.paimongov.benchmarks;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.launcher.JavaModuleOptions;

/**
 * P2 on the providers whose pages are not plain heap: does the budget hold, judged from outside the
 * accounting, when the pages come from Arrow's allocator (offheap), Flink's {@code MemoryManager}
 * (flink) or Spark's {@code TaskMemoryManager} (spark)? The heap provider's P2 is {@link HeapDrift}.
 * Offheap and flink run on the provider's standalone engine (a {@code RootAllocator}, a {@code
 * MemoryManager}), spark in a task of a local Spark context ({@link ProviderBoundSpark}).
 *
 * <p>How: the same table, rows and budget as the heap provider's P2, one governed spilling write per
 * provider in a child JVM of its own ({@link ProviderBoundChild}: {@code -Xmx} = {@value
 * #HEAP_BYTES} bytes, the serial collector, {@link NativeMemory#FLAG}, Spark's module flags). Three
 * figures from outside the accounting, each above its baseline before the write opened:
 *
 * <ul>
 *   <li>the live heap after every full collection ({@link LiveHeapSampler}): what the write holds
 *       on the heap beside its pages (all of it for spark, whose pages are {@code byte[]});
 *   <li>the JVM's native memory, category {@value NativeMemory#CATEGORY} of Native Memory Tracking
 *       ({@link CounterSampler}): where Arrow's and Flink's pages live;
 *   <li>the engine's own counter of memory handed out ({@link CounterSampler}, and the engine's own
 *       peak where it keeps one): Arrow's root allocator, Flink's {@code size - availableMemory},
 *       Spark's task execution memory.
 * </ul>
 *
 * The bound is judged on the sum of the live-heap peak and the native peak ({@link
 * Result#outsidePeakOverBudget}): the budget covers the pages and everything the writer accounts
 * beside them, and the pages are native for offheap and flink, heap for spark. Two peaks added are at
 * least the peak of their sum, so the judged figure never understates. The runtime's own figure,
 * the write's {@code peakReservedBytes}, is reported beside it.
 *
 * <p>A child that fails (out of memory, a crash, the time limit) is a {@link Result} with its
 * outcome and the last lines of its output, never dropped. Stateless; thread-safe; one run at a
 * time is advisable (children compete for the same cores).
 */
public final class ProviderBound {

    /** The providers measured here, in report order. */
    public static final List<String> PROVIDERS = List.of("offheap", "flink", "spark");
    /** The child's heap: the write's live set and its garbage fit many times over, as in {@link HeapDrift}. */
    static final long HEAP_BYTES = HeapDrift.HEAP_BYTES;
    /** Pause between two reads of the engine's counter and the native memory. */
    static final long COUNTER_MILLIS = 5;
    static final long TIMEOUT_SECONDS = 600;
    static final String RESULT = "P2_PROVIDER";

    /**
     * One provider's run.
     *
     * @param provider the provider's name
     * @param outcome how the child ended; the figures below are 0 unless it {@code SURVIVED}
     * @param budgetBytes the write's budget
     * @param peakHeapBytes the most live heap above its baseline any full collection found
     * @param peakNativeBytes the most native memory (NMT {@value NativeMemory#CATEGORY}) above its baseline
     * @param peakEngineBytes the most the engine's counter showed above its baseline
     * @param peakAccountedBytes the write's {@code peakReservedBytes}: the runtime's own
     * @param heapSamples full collections read while the write ran
     * @param counterSamples reads of the engine's counter and the native memory while the write ran
     * @param spillCount spill runs of the write (it must spill for the budget to matter)
     * @param millis the child's wall time, JVM start and warm-up included
     * @param failure the last lines of a failed child's output; empty when it survived
     */
    public record Result(
            String provider,
            TightHeap.Outcome outcome,
            long budgetBytes,
            long peakHeapBytes,
            long peakNativeBytes,
            long peakEngineBytes,
            long peakAccountedBytes,
            int heapSamples,
            int counterSamples,
            long spillCount,
            long millis,
            String failure) {

        /** (peak live heap + peak native memory) / budget: the bound, from outside; at most 1.0 when the budget holds. */
        public double outsidePeakOverBudget() {
            return (double) (peakHeapBytes + peakNativeBytes) / budgetBytes;
        }

        /** Peak live heap / budget. */
        public double heapPeakOverBudget() {
            return (double) peakHeapBytes / budgetBytes;
        }

        /** Peak native memory / budget. */
        public double nativePeakOverBudget() {
            return (double) peakNativeBytes / budgetBytes;
        }

        /** Peak of the engine's own counter / budget: what the engine handed out, pages alone. */
        public double enginePeakOverBudget() {
            return (double) peakEngineBytes / budgetBytes;
        }

        /** Peak accounted / budget: the runtime's own figure, at most 1.0 by construction. */
        public double accountedPeakOverBudget() {
            return (double) peakAccountedBytes / budgetBytes;
        }

        /** Whether the write committed and the figures are measured. */
        public boolean survived() {
            return outcome == TightHeap.Outcome.SURVIVED;
        }

        /** The report's keys for this provider (docs/cli.md); the ratios are null for a child that did not survive. */
        public Map<String, Object> report() {
            Map<String, Object> r = new LinkedHashMap<>();
            boolean ok = survived();
            r.put("outcome", outcome.name());
            r.put("outsidePeakOverBudget", ok ? BenchTables.round2(outsidePeakOverBudget()) : null);
            r.put("heapPeakOverBudget", ok ? BenchTables.round2(heapPeakOverBudget()) : null);
            r.put("nativePeakOverBudget", ok ? BenchTables.round2(nativePeakOverBudget()) : null);
            r.put("enginePeakOverBudget", ok ? BenchTables.round2(enginePeakOverBudget()) : null);
            r.put("accountedPeakOverBudget", ok ? BenchTables.round2(accountedPeakOverBudget()) : null);
            r.put("budgetBytes", budgetBytes);
            r.put("peakHeapBytes", ok ? peakHeapBytes : null);
            r.put("peakNativeBytes", ok ? peakNativeBytes : null);
            r.put("peakEngineBytes", ok ? peakEngineBytes : null);
            r.put("peakAccountedBytes", ok ? peakAccountedBytes : null);
            r.put("heapSamples", heapSamples);
            r.put("counterSamples", counterSamples);
            r.put("spillCount", ok ? spillCount : null);
            r.put("millis", millis);
            r.put("failure", failure);
            return r;
        }
    }

    private ProviderBound() {}

    /**
     * Runs provider {@code provider}'s write of {@code rows} rows under {@code budgetBytes} in a child
     * JVM, with its warehouse, spill and engine under {@code workDir} (removed after).
     *
     * @throws java.io.IOException when the child cannot start
     */
    public static Result run(String provider, Path workDir, int rows, int buckets, int valueBytes, long budgetBytes,
            long heapSampleMillis) throws Exception {
        List<String> jvm = ChildJvm.measuringOptions(HEAP_BYTES);
        jvm.add(NativeMemory.FLAG);
        jvm.addAll(Arrays.asList(JavaModuleOptions.defaultModuleOptionArray()));
        ChildJvm.Ended ended = ChildJvm.run(workDir, jvm, TIMEOUT_SECONDS, ProviderBoundChild.class, List.of(
                provider, workDir.resolve("child").toString(), Integer.toString(rows), Integer.toString(buckets),
                Integer.toString(valueBytes), Long.toString(budgetBytes), Long.toString(heapSampleMillis), Long.toString(COUNTER_MILLIS)));
        BenchTables.deleteTree(workDir);
        return read(provider, budgetBytes, ended);
    }

    /** The result of a child's output: its figures, or its failure. */
    static Result read(String provider, long budgetBytes, ChildJvm.Ended ended) {
        Map<String, Long> v = null;
        for (String line : ended.output().lines().toList()) {
            String[] parts = line.trim().split(" ");
            if (parts[0].equals(RESULT)) {
                v = new HashMap<>();
                for (int i = 1; i < parts.length; i++) {
                    String[] kv = parts[i].split("=", 2);
                    v.put(kv[0], Long.parseLong(kv[1]));
                }
            }
        }
        TightHeap.Outcome outcome = ended.timedOut() ? TightHeap.Outcome.TIMED_OUT
                : ended.outOfMemory() ? TightHeap.Outcome.OUT_OF_MEMORY
                : ended.exitCode() != 0 || v == null ? TightHeap.Outcome.FAILED
                : TightHeap.Outcome.SURVIVED;
        if (outcome != TightHeap.Outcome.SURVIVED) {
            return new Result(provider, outcome, budgetBytes, 0, 0, 0, 0, 0, 0, 0, ended.millis(), ended.tail(5));
        }
        return new Result(provider, outcome, budgetBytes, v.get("peakHeapBytes"), v.get("peakNativeBytes"), v.get("peakEngineBytes"),
                v.get("peakAccountedBytes"), v.get("heapSamples").intValue(), v.get("counterSamples").intValue(), v.get("spillCount"),
                ended.millis(), "");
    }
}
