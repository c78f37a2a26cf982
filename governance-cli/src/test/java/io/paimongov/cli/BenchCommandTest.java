package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCommandTest {

    @TempDir Path dir;

    @Test
    void jsonHasEveryMeasureAndNothingElseOnStdout() throws Exception {
        // A work directory named with every kind of character a URI escapes: every table goes there.
        Path workDir = dir.resolve(UserPaths.everyKind());
        CliRun run = CliRun.of("bench", "--tiny", "--json", "--rows", "2000", "--repetitions", "1", "--work-dir",
                workDir.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        UserPaths.onlyEntryOfItsParent(workDir);
        JsonNode json = run.json();
        for (String key : new String[] {
            "quick", "cores",
            "p1ThroughputRatio", "p1PlainMillis", "p1GovernedMillis", "p1ThroughputRatioDefaults", "p1PlainDefaultsMillis",
            "p1GovernedSpillCount", "p1Rows",
            "p2HeapPeakOverBudget", "p2AccountedPeakOverBudget", "p2HeapDrift", "p2HeapDriftMean", "p2BudgetBytes", "p2PeakAccountedBytes",
            "p2PeakHeapBytes", "p2HeapSamples", "p2SpillCount", "p2HeapLeftAfterCloseBytes", "p2Providers",
            "p3GovernedSurvived", "p3GovernedHeapPeakOverBudget", "p3GovernedHeapSamples", "p3PlainOom", "p3GovernedOutcome",
            "p3PlainOutcome", "p3PlainHeapPeakOverBudget", "p3PlainDefaultsOom", "p3PlainDefaultsOutcome", "p3HeapBytes", "p3BudgetBytes",
            "p3Rows",
            "p4SpillThroughputRatio", "p4WrittenSpillBytesRatio", "p4CountedSpillBytesRatio", "p4InMemoryMillis", "p4SpillingMillis",
            "p4BudgetBytes", "p4InputBytes", "p4WrittenSpillBytes", "p4SpillBytes", "p4SpillFiles", "p4SpillRuns", "p4SpillFanIn",
            "p4RowGroupBytes", "p4InMemoryRowGroupMillis", "p4RowGroupRatio", "p4ExternalSortMillis", "p4ExternalSortBytes",
            "p4SpillLimitRatio", "p4SpillOfLimit", "p4RowGroupLimitRatio",
            "p6CancelP99Millis", "p6CancelP50Millis", "p6Cancel", "cancelP99MillisWorstPhase", "cancelMissedPhases", "cancel",
            "compactionSpeedup", "compactionSpeedupPerBucket", "compactionDrainMillis", "compactionPeakRunning",
            "p7AllocOverhead", "p7ProviderNanos", "p7EngineNanos",
            "repetitions", "elapsedMillis"}) {
            assertThat(json.has(key)).as(key).isTrue();
        }
        assertThat(json.get("p1ThroughputRatio").asDouble()).isPositive();
        assertThat(json.has("p2PeakOverBudget")).as("renamed p2AccountedPeakOverBudget").isFalse();
        assertThat(json.get("p2AccountedPeakOverBudget").asDouble()).isPositive().isLessThanOrEqualTo(1.0);
        // The outside figure is the child's live heap peak over the budget, as reported beside it.
        assertThat(json.get("p2HeapPeakOverBudget").asDouble())
                .isCloseTo((double) json.get("p2PeakHeapBytes").asLong() / json.get("p2BudgetBytes").asLong(), org.assertj.core.data.Offset.offset(0.005));
        assertThat(json.get("p2HeapSamples").asInt()).isPositive();
        // P2 on every provider whose pages are not plain heap: each child's figures, numbers when it survived.
        for (String provider : new String[] {"offheap", "flink", "spark"}) {
            JsonNode p = json.get("p2Providers").get(provider);
            assertThat(p).as(provider).isNotNull();
            assertThat(p.get("outcome").asText()).as(provider + ": " + p.get("failure")).isEqualTo("SURVIVED");
            for (String number : new String[] {"outsidePeakOverBudget", "heapPeakOverBudget", "nativePeakOverBudget", "enginePeakOverBudget",
                "accountedPeakOverBudget", "budgetBytes", "peakHeapBytes", "peakNativeBytes", "peakEngineBytes", "peakAccountedBytes",
                "heapSamples", "counterSamples", "spillCount", "millis"}) {
                assertThat(p.get(number).isNumber()).as(provider + "." + number).isTrue();
            }
            assertThat(p.get("failure").asText()).isEmpty();
            assertThat(p.get("counterSamples").asInt()).isGreaterThanOrEqualTo(2);
            assertThat(p.get("accountedPeakOverBudget").asDouble()).isPositive().isLessThanOrEqualTo(1.0);
            // The judged figure is the heap peak plus the native peak over the budget, as reported beside it.
            assertThat(p.get("outsidePeakOverBudget").asDouble()).isCloseTo(
                    (double) (p.get("peakHeapBytes").asLong() + p.get("peakNativeBytes").asLong()) / p.get("budgetBytes").asLong(),
                    org.assertj.core.data.Offset.offset(0.005));
        }
        assertThat(json.get("p2Providers").size()).isEqualTo(3);
        assertThat(json.get("p3GovernedHeapPeakOverBudget").isNumber()).isEqualTo(json.get("p3GovernedSurvived").asBoolean());
        assertThat(json.get("p1ThroughputRatioDefaults").asDouble()).isPositive();
        assertThat(json.get("p2HeapDrift").isNumber()).isTrue();
        assertThat(json.get("p3GovernedSurvived").isBoolean()).isTrue();
        assertThat(json.get("p3PlainOom").isBoolean()).isTrue();
        assertThat(json.get("p4SpillThroughputRatio").asDouble()).isPositive();
        assertThat(json.has("p4SpillBytesRatio")).as("renamed p4CountedSpillBytesRatio").isFalse();
        assertThat(json.get("p4WrittenSpillBytesRatio").asDouble()).isPositive();
        assertThat(json.get("p4WrittenSpillBytes").asLong()).isPositive();
        // A goal phase with no sample cancelled mid-phase would make the worst phase unknown (null) and be listed.
        assertThat(json.get("cancelMissedPhases").isArray()).isTrue();
        assertThat(json.get("cancelP99MillisWorstPhase").isNull()).isEqualTo(json.get("cancelMissedPhases").size() > 0);
        assertThat(json.get("p6CancelP50Millis").asDouble()).isPositive();
        assertThat(json.get("p4SpillLimitRatio").asDouble()).isPositive().isLessThanOrEqualTo(1.0);
        for (String phase : new String[] {"writing", "spilling", "compactionWait", "prepareCommit"}) {
            assertThat(json.get("p6Cancel").has(phase)).as(phase).isTrue();
            assertThat(json.get("p6Cancel").get(phase).has("p99Millis")).isTrue();
        }
        // The six phases of the goal and the diagnostic, each with its numbers.
        for (String phase : new String[] {"write", "spill", "flush", "compaction", "prepareCommit", "commit", "compactionWait"}) {
            for (String number : new String[] {"p50", "p99", "max", "samples", "missed"}) {
                assertThat(json.get("cancel").get(phase).has(number)).as(phase + "." + number).isTrue();
            }
        }
        assertThat(json.get("cancel").size()).isEqualTo(7);
        // The earlier key is an alias of the worst phase's p99.
        assertThat(json.get("p6CancelP99Millis")).isEqualTo(json.get("cancelP99MillisWorstPhase"));
        assertThat(json.get("compactionSpeedup").asDouble()).isPositive();
        assertThat(json.get("compactionDrainMillis").has("1")).isTrue();
        assertThat(json.get("compactionDrainMillis").has("2")).isTrue();
        assertThat(json.get("compactionDrainMillis").has("-1")).isTrue();
        assertThat(json.get("compactionPeakRunning").get("1").asInt()).isEqualTo(1);
        for (String provider : new String[] {"heap", "offheap", "flink", "spark"}) {
            assertThat(json.get("p7AllocOverhead").get(provider).asDouble()).as(provider).isPositive();
        }
        assertThat(run.err()).containsPattern("bench: \\[ *[0-9.]+ s\\] P1 ").contains("] P2 on provider spark").contains("] P6 cancel latency").contains("] compaction drain")
                .contains("] allocator overhead");
    }

    @Test
    void badSizesAreUsageErrors() {
        CliRun run = CliRun.of("bench", "--rows", "0");
        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("--rows");
    }
}
