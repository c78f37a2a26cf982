package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.ObservedProvider;
import io.paimongov.fixtures.TestTables;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.runtime.write.WriteChannels;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/** Opens governed writes on real tables and checks that nothing is left behind. */
final class WriteHarness {

    static final int ROWS = Integer.getInteger("governance.test.rows", 60_000);

    final Path root;
    final Path spillRoot;
    final ObservedProvider provider = new ObservedProvider(new HeapGovernanceProvider());
    ResourceContext context;

    WriteHarness(Path root) throws IOException {
        this.root = root;
        this.spillRoot = Files.createDirectories(root.resolve("spill"));
    }

    GovernanceOptions options(String budget, String... more) {
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.MEMORY_BUDGET, budget);
        values.put(GovernanceOptions.SPILL_DIRS, spillRoot.toString());
        for (int i = 0; i < more.length; i += 2) {
            values.put(more[i], more[i + 1]);
        }
        return GovernanceOptions.of(values);
    }

    GovernedTableWrite batch(FileStoreTable table, GovernanceOptions options) {
        return batch(table, options, WriteChannels.single(table), false);
    }

    /** A batch write of the rows of some of {@code channels}, overwriting or not. */
    GovernedTableWrite batch(FileStoreTable table, GovernanceOptions options, WriteChannels channels, boolean overwrite) {
        context = ResourceContext.open("test", provider, options, EngineEnvironment.standalone());
        return GovernedTableWrite.batch(table, context, channels, overwrite);
    }

    /** Opens a write and writes every row; the write stays open, nothing is prepared. Closes it if a row fails. */
    GovernedTableWrite batchWriting(FileStoreTable table, GovernanceOptions options, List<InternalRow> rows) throws Exception {
        GovernedTableWrite write = batch(table, options);
        try {
            for (InternalRow row : rows) {
                write.write(row);
            }
        } catch (Exception | Error e) {
            write.close();
            throw e;
        }
        return write;
    }

    /** Writes every row, prepares and commits, closes. */
    void writeAndCommit(FileStoreTable table, GovernanceOptions options, List<InternalRow> rows) throws Exception {
        try (GovernedTableWrite write = batchWriting(table, options, rows)) {
            write.prepareCommit().commit();
        }
    }

    /**
     * The last write's peak against its budget as configured ({@code budget} in MiB, such as "4m"),
     * not the budget the write reports, and against the allocator's own exact peak, which the
     * write's accounting must cover.
     */
    void assertPeakWithin(String budget, MetricsSnapshot m) {
        assertThat(budget).as("a budget in MiB").matches("\\d+m");
        long budgetBytes = Long.parseLong(budget.substring(0, budget.length() - 1)) << 20;
        long allocatorPeak = provider.lastOpened().peakUsedBytes().orElseThrow();
        assertThat(allocatorPeak).as("the allocator's peak").isPositive().isLessThanOrEqualTo(budgetBytes);
        assertThat(m.peakReservedBytes()).as("the accounted peak").isGreaterThanOrEqualTo(allocatorPeak)
                .isLessThanOrEqualTo(budgetBytes);
    }

    /** Zero reservations, the engine's memory back to zero, no spill scope, spill files or data files. */
    void assertNothingLeft(FileStoreTable table) throws IOException {
        assertThat(context.isClosed()).isTrue();
        assertThat(context.snapshot().reservedBytes()).as("reserved after close").isZero();
        assertThat(context.holders()).as("live reservations").isEmpty();
        assertThat(provider.lastOpened().usedAtClose()).as("engine memory held at close").isZero();
        assertThat(spillScopes()).as("spill scopes left").isEmpty();
        assertThat(table.snapshotManager().latestSnapshot()).as("snapshot").isNull();
        assertThat(TestTables.dataFiles(table)).as("data files left in the table").isEmpty();
    }

    List<Path> spillScopes() throws IOException {
        try (Stream<Path> s = Files.list(spillRoot)) {
            return s.filter(p -> p.getFileName().toString().startsWith(SpillScope.PREFIX)).toList();
        }
    }
}
