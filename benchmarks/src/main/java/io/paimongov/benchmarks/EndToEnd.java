package io.paimongov.benchmarks;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The end-to-end measures P1 to P4 and P6 in one run, at one of three sizes, reported as the
 * stable keys {@code ./paimon-governance bench --json} prints (docs/cli.md lists them, and
 * docs/performance.md says how each is measured). The compaction drain (P5) is {@link
 * CompactionDrain}, run by the caller.
 *
 * <p>Order: P2 first (in a child JVM of its own; then once per provider whose pages are not plain heap,
 * {@link ProviderBound}, each in a child JVM of its own), then the throughput measures P1 and P4, P6, and
 * P3 last (it only starts child JVMs). Not thread-safe; one run at a time.
 */
public final class EndToEnd {

    /**
     * Sizes of every measure.
     *
     * @param throughput the P1 workload; P4 uses it too, with the spilling budget at {@code spillPercent}%
     * @param spillPercent P4's budget as a percentage of the input bytes
     * @param driftRows rows of the P2 write, on the heap provider and on every other ({@link ProviderBound})
     * @param driftBudgetBytes the P2 writes' budget (the input is several times larger, so they spill)
     * @param driftSampleMillis pause between P2's periodic heap samples
     * @param tightHeap the P3 children
     * @param cancel the P6 samples
     */
    public record Sizes(
            WriteThroughput.Workload throughput,
            double spillPercent,
            int driftRows,
            long driftBudgetBytes,
            long driftSampleMillis,
            TightHeap.Workload tightHeap,
            CancelLatency.Settings cancel) {

        /** P3 sizes, the same in every preset but {@link #tiny()}: they decide whether plain Paimon runs out of heap. */
        static final TightHeap.Workload TIGHT_HEAP = new TightHeap.Workload(300_000, 256, 24L << 20, 96L << 20, 300);

        /** About 2 minutes on two idle cores. */
        public static Sizes quick() {
            return new Sizes(
                    new WriteThroughput.Workload(120_000, 4, 256, 128L << 20, 3), 5,
                    60_000, 16L << 20, 100,
                    TIGHT_HEAP,
                    new CancelLatency.Settings(10, 50_000, 10_000));
        }

        /** Several minutes: larger writes, more repetitions and samples. */
        public static Sizes full() {
            return new Sizes(
                    new WriteThroughput.Workload(400_000, 4, 256, 384L << 20, 5), 5,
                    200_000, 16L << 20, 50,
                    TIGHT_HEAP,
                    new CancelLatency.Settings(50, 100_000, 20_000));
        }

        /**
         * Seconds, for tests: every measure runs and every key is reported, but the values mean
         * little (P4's budget is half the input, since 5% of a tiny input is below what a write needs;
         * P3's plain child has too little to write to run out of heap).
         */
        public static Sizes tiny() {
            return new Sizes(
                    new WriteThroughput.Workload(10_000, 4, 256, 64L << 20, 1), 60,
                    5_000, 8L << 20, 50,
                    new TightHeap.Workload(2_000, 64, 24L << 20, 96L << 20, 120),
                    new CancelLatency.Settings(1, 5_000, 1_000));
        }
    }

    private EndToEnd() {}

    /**
     * Runs every measure under {@code workDir} (the caller removes it) and returns the report
     * values in key order. {@code progress} gets one line before each measure.
     */
    public static Map<String, Object> run(Path workDir, Sizes sizes, Consumer<String> progress) throws Exception {
        Map<String, Object> r = new LinkedHashMap<>();
        WriteThroughput.Workload w = sizes.throughput();

        progress.accept(String.format(
                "P2 accounted vs budget and heap, %,d rows under %d MiB ...", sizes.driftRows(), sizes.driftBudgetBytes() >> 20));
        HeapDrift.Result p2 =
                HeapDrift.run(workDir.resolve("p2"), sizes.driftRows(), w.buckets(), w.valueBytes(), sizes.driftBudgetBytes(), sizes.driftSampleMillis());
        r.put("p2HeapPeakOverBudget", BenchTables.round2(p2.heapPeakOverBudget()));
        r.put("p2AccountedPeakOverBudget", BenchTables.round2(p2.accountedPeakOverBudget()));
        r.put("p2HeapDrift", BenchTables.round2(p2.heapDrift()));
        r.put("p2HeapDriftMean", BenchTables.round2(p2.meanDrift()));
        r.put("p2BudgetBytes", p2.budgetBytes());
        r.put("p2PeakAccountedBytes", p2.peakAccountedBytes());
        r.put("p2PeakHeapBytes", p2.peakHeapBytes());
        r.put("p2HeapSamples", p2.samples());
        r.put("p2SpillCount", p2.spillCount());
        r.put("p2HeapLeftAfterCloseBytes", p2.heapLeftAfterCloseBytes());
        Map<String, Object> providers = new LinkedHashMap<>();
        for (String provider : ProviderBound.PROVIDERS) {
            progress.accept(String.format(
                    "P2 on provider %s, the same write in a child JVM: live heap, native memory and the engine's own counter ...", provider));
            ProviderBound.Result bound = ProviderBound.run(provider, workDir.resolve("p2-" + provider), sizes.driftRows(), w.buckets(),
                    w.valueBytes(), sizes.driftBudgetBytes(), sizes.driftSampleMillis());
            providers.put(provider, bound.report());
        }
        r.put("p2Providers", providers);

        progress.accept(String.format(
                "P1 governed vs plain Paimon (its settings, and its defaults), %,d rows into %d buckets, %d MiB, %d repetitions ...",
                w.rows(), w.buckets(), w.budgetBytes() >> 20, w.repetitions()));
        WriteThroughput.P1 p1 = WriteThroughput.governedVsPlain(workDir.resolve("p1"), w);
        r.put("p1ThroughputRatio", BenchTables.round2(p1.ratio()));
        r.put("p1PlainMillis", p1.plain().medianMillis());
        r.put("p1GovernedMillis", p1.governed().medianMillis());
        r.put("p1ThroughputRatioDefaults", BenchTables.round2(p1.ratioDefaults()));
        r.put("p1PlainDefaultsMillis", p1.plainDefaults().medianMillis());
        r.put("p1GovernedSpillCount", p1.governed().metrics().spillCount());
        r.put("p1Rows", w.rows());

        progress.accept(String.format(
                "P4 spilling at %s%% of the input vs in memory, the in-memory write at the spilling row group and a plain external sort ...",
                sizes.spillPercent()));
        WriteThroughput.P4 p4 = WriteThroughput.spillingVsInMemory(workDir.resolve("p4"), w, sizes.spillPercent());
        r.put("p4SpillThroughputRatio", BenchTables.round2(p4.throughputRatio()));
        r.put("p4WrittenSpillBytesRatio", BenchTables.round2(p4.writtenSpillBytesRatio()));
        r.put("p4CountedSpillBytesRatio", BenchTables.round2(p4.countedSpillBytesRatio()));
        r.put("p4InMemoryMillis", p4.inMemory().medianMillis());
        r.put("p4SpillingMillis", p4.spilling().medianMillis());
        r.put("p4BudgetBytes", p4.spillBudgetBytes());
        r.put("p4InputBytes", p4.inputBytes());
        r.put("p4WrittenSpillBytes", p4.writtenSpillBytes());
        r.put("p4SpillBytes", p4.countedSpillBytes());
        r.put("p4SpillFiles", p4.spilling().metrics().spillFiles());
        r.put("p4SpillRuns", p4.spillRuns());
        r.put("p4SpillFanIn", p4.fanIn());
        r.put("p4RowGroupBytes", p4.rowGroupBytes());
        r.put("p4InMemoryRowGroupMillis", p4.inMemoryRowGroup().medianMillis());
        r.put("p4RowGroupRatio", BenchTables.round2(p4.rowGroupRatio()));
        r.put("p4ExternalSortMillis", p4.externalSort().medianMillis());
        r.put("p4ExternalSortBytes", p4.externalSortBytes());
        r.put("p4SpillLimitRatio", BenchTables.round2(p4.limitRatio()));
        r.put("p4SpillOfLimit", BenchTables.round2(p4.ofLimit()));
        r.put("p4RowGroupLimitRatio", BenchTables.round2(p4.rowGroupLimitRatio()));

        CancelLatency.Settings c = sizes.cancel();
        progress.accept(String.format(
                "P6 cancel latency, %d samples in each of %d phases ...", c.samples(), CancelLatency.Phase.values().length));
        CancelLatencyResult p6 = CancelLatency.run(workDir.resolve("p6"), c);
        r.put("cancelP99MillisWorstPhase", round2(p6.p99Millis()));
        r.put("cancelMissedPhases", p6.missedPhases().stream().map(CancelLatency.Phase::key).toList());
        Map<String, Object> cancel = new LinkedHashMap<>();
        p6.phases().forEach((phase, result) -> cancel.put(phase.key(), phase(result, "")));
        r.put("cancel", cancel);
        // The earlier keys: the same worst-phase value, and the four phases they named.
        r.put("p6CancelP99Millis", round2(p6.p99Millis()));
        r.put("p6CancelP50Millis", round2(p6.p50Millis()));
        Map<String, Object> phases = new LinkedHashMap<>();
        p6.phases().forEach((phase, result) -> {
            if (phase.p6Key() != null) {
                phases.put(phase.p6Key(), phase(result, "Millis"));
            }
        });
        r.put("p6Cancel", phases);

        TightHeap.Workload t = sizes.tightHeap();
        progress.accept(String.format(
                "P3 %d-bucket append table in child JVMs with -Xmx%dm, governed (budget %d MiB), plain with its settings, plain with defaults ...",
                TightHeap.BUCKETS, t.heapBytes() >> 20, t.budgetBytes() >> 20));
        TightHeap.Result p3 = TightHeap.run(workDir.resolve("p3"), t);
        progress.accept(String.format(
                "P3 governed child %s in %,d ms; plain %s in %,d ms; plain with defaults %s in %,d ms, its last words: %s",
                p3.governed().outcome(), p3.governed().millis(), p3.plain().outcome(), p3.plain().millis(), p3.plainDefaults().outcome(),
                p3.plainDefaults().millis(), p3.plainDefaults().tail(2)));
        r.put("p3GovernedSurvived", p3.governedSurvived());
        r.put("p3GovernedHeapPeakOverBudget", round2(p3.governed().heapPeakOverBudget(t.budgetBytes())));
        r.put("p3GovernedHeapSamples", p3.governed().heapSamples());
        r.put("p3PlainOom", p3.plain().outcome() == TightHeap.Outcome.OUT_OF_MEMORY);
        r.put("p3GovernedOutcome", p3.governed().outcome().name());
        r.put("p3PlainOutcome", p3.plain().outcome().name());
        r.put("p3PlainHeapPeakOverBudget", round2(p3.plain().heapPeakOverBudget(t.budgetBytes())));
        r.put("p3PlainDefaultsOom", p3.plainDefaults().outcome() == TightHeap.Outcome.OUT_OF_MEMORY);
        r.put("p3PlainDefaultsOutcome", p3.plainDefaults().outcome().name());
        r.put("p3HeapBytes", t.heapBytes());
        r.put("p3BudgetBytes", t.budgetBytes());
        r.put("p3Rows", t.rows());
        return r;
    }

    /** {@code value} rounded to two decimals; null stays null (a figure of a run that did not survive). */
    private static Double round2(Double value) {
        return value == null ? null : BenchTables.round2(value);
    }

    /** One phase's numbers; {@code suffix} is "Millis" in the earlier {@code p6Cancel} keys, "" in {@code cancel}. */
    private static Map<String, Object> phase(CancelLatencyResult.PhaseResult p, String suffix) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("p50" + suffix, round2(p.p50Millis()));
        m.put("p99" + suffix, round2(p.p99Millis()));
        m.put("max" + suffix, round2(p.maxMillis()));
        m.put("samples", p.micros().size());
        m.put("missed", p.missed());
        return m;
    }
}
