package io.paimongov.benchmarks.cancel;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench cancel} at its tiny size: both engines' children run, every documented key is
 * reported, and a governed job cancelled mid-write left nothing behind in either engine (the
 * engines' own counters and directories say so; the times are not judged).
 */
class JobCancelBenchTest {

    @TempDir Path dir;

    @Test
    void bothEnginesReportEveryKeyAndTheGovernedJobsLeaveNothingBehind() throws Exception {
        List<String> progress = new ArrayList<>();
        Map<String, Object> r = JobCancelBench.run(dir, JobCancelBench.Sizes.tiny(), EnumSet.allOf(JobCancelBench.Engine.class), progress::add);

        for (String engine : List.of("flink", "spark")) {
            assertThat(r).containsKeys(
                    engine + "CancelRatioP50", engine + "CancelRatioP90",
                    engine + "CancelP50Millis", engine + "CancelP90Millis", engine + "CancelMaxMillis",
                    engine + "JobEndP50Millis", engine + "JobEndP90Millis", engine + "JobEndMaxMillis",
                    engine + "CancelMillis", engine + "JobEndMillis", engine + "RowsAtCancel", engine + "Tasks", engine + "TasksCancelled",
                    engine + "Pairs", engine + "Rows", engine + "CancelAfterRows",
                    engine + "GovernedNoSnapshot", engine + "GovernedNoSpillScope", engine + "GovernedNoDataFiles",
                    engine + "GovernedLeftNothing", engine + "PaimonLeftNothing");
            assertThat(List.copyOf(((Map<?, ?>) r.get(engine + "CancelP50Millis")).keySet())).isEqualTo(List.of("paimon", "governed"));
            assertThat((Map<?, ?>) r.get(engine + "Tasks")).as("every task of every job was cancelled")
                    .isEqualTo(r.get(engine + "TasksCancelled"));
            assertThat(r.get(engine + "GovernedLeftNothing")).as(engine + ": what the governed jobs left, " + r).isEqualTo(true);
        }
        assertThat(r.get("flinkGovernedManagedMemoryBack")).isEqualTo(true);
        assertThat(r.get("sparkGovernedTaskMemoryBack")).isEqualTo(true);
        assertThat(progress).anyMatch(l -> l.startsWith("flink pair 1/1: "))
                .anyMatch(l -> l.startsWith("spark pair 1/1: "));
    }
}
