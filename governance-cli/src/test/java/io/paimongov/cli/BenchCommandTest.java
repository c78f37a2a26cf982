package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class BenchCommandTest {

    @Test
    void jsonHasEveryMeasureAndNothingElseOnStdout() throws Exception {
        CliRun run = CliRun.of("bench", "--tiny", "--json", "--rows", "2000", "--repetitions", "1");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode json = run.json();
        for (String key : new String[] {
            "quick", "cores",
            "p1ThroughputRatio", "p1PlainMillis", "p1GovernedMillis", "p1GovernedSpillCount", "p1Rows",
            "p2PeakOverBudget", "p2HeapDrift", "p2HeapDriftMean", "p2BudgetBytes", "p2PeakAccountedBytes", "p2PeakHeapBytes",
            "p2HeapSamples", "p2SpillCount", "p2HeapLeftAfterCloseBytes",
            "p3GovernedSurvived", "p3PlainOom", "p3GovernedOutcome", "p3PlainOutcome", "p3HeapBytes", "p3BudgetBytes", "p3Rows",
            "p4SpillThroughputRatio", "p4SpillBytesRatio", "p4InMemoryMillis", "p4SpillingMillis", "p4BudgetBytes",
            "p4InputBytes", "p4SpillBytes", "p4SpillFiles", "p4SpillRuns", "p4SpillFanIn", "p4RowGroupBytes",
            "p4InMemoryRowGroupMillis", "p4RowGroupRatio", "p4ExternalSortMillis", "p4ExternalSortBytes", "p4SpillLimitRatio",
            "p4SpillOfLimit", "p4RowGroupLimitRatio",
            "p6CancelP99Millis", "p6CancelP50Millis", "p6Cancel", "cancelP99MillisWorstPhase", "cancel",
            "compactionSpeedup", "compactionSpeedupPerBucket", "compactionDrainMillis", "compactionPeakRunning",
            "p7AllocOverhead", "p7ProviderNanos", "p7EngineNanos",
            "repetitions", "elapsedMillis"}) {
            assertThat(json.has(key)).as(key).isTrue();
        }
        assertThat(json.get("p1ThroughputRatio").asDouble()).isPositive();
        assertThat(json.get("p2PeakOverBudget").asDouble()).isPositive().isLessThanOrEqualTo(1.0);
        assertThat(json.get("p2HeapDrift").isNumber()).isTrue();
        assertThat(json.get("p3GovernedSurvived").isBoolean()).isTrue();
        assertThat(json.get("p3PlainOom").isBoolean()).isTrue();
        assertThat(json.get("p4SpillThroughputRatio").asDouble()).isPositive();
        assertThat(json.get("p4SpillBytesRatio").asDouble()).isPositive();
        assertThat(json.get("p4SpillLimitRatio").asDouble()).isPositive().isLessThanOrEqualTo(1.0);
        assertThat(json.get("p6CancelP99Millis").asDouble()).isPositive();
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
        assertThat(json.get("p6CancelP99Millis").asDouble()).isEqualTo(json.get("cancelP99MillisWorstPhase").asDouble());
        assertThat(json.get("compactionSpeedup").asDouble()).isPositive();
        assertThat(json.get("compactionDrainMillis").has("1")).isTrue();
        assertThat(json.get("compactionDrainMillis").has("2")).isTrue();
        assertThat(json.get("compactionDrainMillis").has("-1")).isTrue();
        assertThat(json.get("compactionPeakRunning").get("1").asInt()).isEqualTo(1);
        for (String provider : new String[] {"heap", "offheap", "flink", "spark"}) {
            assertThat(json.get("p7AllocOverhead").get(provider).asDouble()).as(provider).isPositive();
        }
        assertThat(run.err()).containsPattern("bench: \\[ *[0-9.]+ s\\] P1 ").contains("] P6 cancel latency").contains("] compaction drain")
                .contains("] allocator overhead");
    }

    @Test
    void badSizesAreUsageErrors() {
        CliRun run = CliRun.of("bench", "--rows", "0");
        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.err()).contains("--rows");
    }
}
