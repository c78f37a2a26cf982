package io.paimongov.nativehost;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A governed write of a real primary-key table on a host of the tests' C library, found by name as
 * an engine finds it ({@code governance.provider=native}, {@code governance.native.host}), with a
 * host limit below the write's budget: the host's own count (written by the host at its detach)
 * says what was reserved, for what, and that all of it came back.
 */
class NativeGovernedWriteTest {

    static final int ROWS = Integer.getInteger("governance.test.rows", 60_000);

    @TempDir Path dir;

    @Test
    void aSpillingWriteUnderAHostLimitCommitsTheModelAndGivesEveryKindBack() throws Exception {
        long limit = 3 << 20;
        Path record = dir.resolve("record.txt");
        Path metrics = dir.resolve("metrics.txt");
        NativeHost host = TestHosts.open("record=" + record + ",metrics=" + metrics, limit);
        Workload w = Workload.random(41, ROWS, ROWS / 4, 3, 48);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.PROVIDER, "native",
                NativeGovernanceProvider.HOST_KEY, host.name(),
                GovernanceOptions.MEMORY_BUDGET, "8m",
                "governance.memory.page-size", "16k",
                GovernanceOptions.SPILL_DIRS, Files.createDirectories(dir.resolve("spill")).toString()));
        ResourceContext context = ResourceContext.open("native-write", options, EngineEnvironment.standalone());
        try (GovernedTableWrite write = GovernedTableWrite.batch(table, context)) {
            for (InternalRow row : w.rows()) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }
        MetricsSnapshot last = context.snapshot();
        long heldAtDetach = NativeHosts.detach(host.name());

        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        assertThat(last.spillBytes()).as("the host's limit made the write spill").isPositive();
        assertThat(heldAtDetach).as("bytes the provider counts as still held on the host").isZero();
        Map<Integer, long[]> byKind = TestHosts.record(record);
        assertThat(byKind.get(-1)[0]).as("the host's own count at the end").isZero();
        assertThat(byKind.get(-2)[0]).as("the host's own peak").isPositive().isLessThanOrEqualTo(limit);
        for (ConsumerKind kind : List.of(ConsumerKind.WRITE_BUFFER, ConsumerKind.WRITER, ConsumerKind.SPILL_IO)) {
            assertThat(byKind.get(kind.code())[0]).as("bytes reserved for " + kind.label()).isPositive();
        }
        for (ConsumerKind kind : ConsumerKind.values()) {
            assertThat(byKind.get(kind.code())[2]).as("bytes of " + kind.label() + " held at the end").isZero();
        }
        List<String> reports = Files.readAllLines(metrics);
        assertThat(reports).as("on_metrics' final report of the write: write_id final_report input_rows")
                .contains("1 1 " + w.rows().size());
    }
}
