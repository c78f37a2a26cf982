package io.paimongov.benchmarks;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.WriteFootprint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;

/**
 * P1 and P4: write throughput of the same rows into the same kind of table, two settings side by
 * side.
 *
 * <ul>
 *   <li>P1, {@link #governedVsPlain}: a governed write (heap provider, budget {@code budgetBytes})
 *       against plain Paimon ({@code table.newBatchWriteBuilder().newWrite()} with {@code
 *       write-buffer-size} = the same bytes and the table options the governed write plans for
 *       that budget, {@link WriteFootprint#tableOptions()}). The budget holds the whole input, so
 *       neither spills; what is left is the cost of governing.
 *   <li>P4, {@link #spillingVsInMemory}: two governed writes, one with the budget that holds the
 *       input, one with the budget at {@code budgetPercent}% of the input's bytes (Paimon's binary
 *       row size, the write's {@code inputBytes}), which spills.
 * </ul>
 *
 * <p>How a run is timed: a fresh primary-key table per run (created untimed), then from opening
 * the write through writing every row and {@code prepareCommit}; the commit and close are not in
 * the time (they are the same for both and would only dilute the ratio). Rows come from a seeded
 * generator inside the loop, the same rows for both settings. One untimed run of each setting
 * warms the JVM up; then the settings alternate, each repetition starting with the other one, and
 * the medians are compared. Not thread-safe; one run at a time.
 */
public final class WriteThroughput {

    /**
     * The workload.
     *
     * @param rows rows per write
     * @param buckets buckets of the primary-key table
     * @param valueBytes bytes of each value
     * @param budgetBytes the budget (and plain Paimon's {@code write-buffer-size}) that holds the whole input
     * @param repetitions timed runs per setting
     */
    public record Workload(int rows, int buckets, int valueBytes, long budgetBytes, int repetitions) {}

    /** One setting's medians and the last repetition's metrics (plain Paimon has none: null). */
    public record Setting(long medianMillis, MetricsSnapshot metrics) {}

    /** P1. {@code ratio} = T(plain) / T(governed): governed throughput over plain throughput. */
    public record P1(Setting plain, Setting governed, double ratio) {}

    /**
     * P4. {@code throughputRatio} = T(in memory) / T(spilling); {@code spillBytesRatio} = bytes
     * written to spill files / input bytes, in the spilling write.
     */
    public record P4(Setting inMemory, Setting spilling, long spillBudgetBytes, double throughputRatio, double spillBytesRatio) {}

    /** One timed run: its milliseconds and the write's final metrics (null for plain Paimon). */
    record Timed(long millis, MetricsSnapshot metrics) {}

    private interface Run {
        Timed once(Path dir) throws Exception;
    }

    private WriteThroughput() {}

    /** P1: governed and plain writes of {@code w}, alternating, under {@code workDir}. */
    public static P1 governedVsPlain(Path workDir, Workload w) throws Exception {
        List<Setting> both =
                alternate(workDir, w.repetitions(), dir -> plain(dir, w), dir -> governed(dir, w, w.budgetBytes()));
        return new P1(both.get(0), both.get(1), (double) both.get(0).medianMillis() / Math.max(1, both.get(1).medianMillis()));
    }

    /**
     * P4: governed writes of {@code w} with the budget {@code w.budgetBytes()} and with {@code
     * budgetPercent}% of the input bytes (measured by an untimed in-memory write first).
     */
    public static P4 spillingVsInMemory(Path workDir, Workload w, double budgetPercent) throws Exception {
        long inputBytes = governed(workDir.resolve("size"), w, w.budgetBytes()).metrics().inputBytes();
        BenchTables.deleteTree(workDir.resolve("size"));
        long spillBudget = (long) (inputBytes * budgetPercent / 100);
        List<Setting> both =
                alternate(workDir, w.repetitions(), dir -> governed(dir, w, w.budgetBytes()), dir -> governed(dir, w, spillBudget));
        MetricsSnapshot spilled = both.get(1).metrics();
        return new P4(
                both.get(0),
                both.get(1),
                spillBudget,
                (double) both.get(0).medianMillis() / Math.max(1, both.get(1).medianMillis()),
                (double) spilled.spillBytes() / Math.max(1, spilled.inputBytes()));
    }

    /** Warm-up of each, then {@code repetitions} alternating rounds; the two settings' medians. */
    private static List<Setting> alternate(Path workDir, int repetitions, Run a, Run b) throws Exception {
        Run[] runs = {a, b};
        List<List<Long>> times = List.of(new ArrayList<>(), new ArrayList<>());
        MetricsSnapshot[] last = new MetricsSnapshot[2];
        for (int i = 0; i < 2; i++) {
            Path dir = workDir.resolve("warm-up-" + i);
            runs[i].once(dir);
            BenchTables.deleteTree(dir);
        }
        for (int rep = 0; rep < repetitions; rep++) {
            for (int j = 0; j < 2; j++) {
                int i = (rep + j) % 2;
                Path dir = workDir.resolve("run-" + i + "-" + rep);
                Timed s = runs[i].once(dir);
                times.get(i).add(s.millis());
                last[i] = s.metrics();
                BenchTables.deleteTree(dir);
            }
        }
        return List.of(
                new Setting(BenchTables.median(times.get(0)), last[0]),
                new Setting(BenchTables.median(times.get(1)), last[1]));
    }

    /**
     * One plain Paimon write, with the table options the governed write plans for the same budget
     * (row-group size, spillable buffer, sort fan-in, synchronous file writes) and that budget as
     * {@code write-buffer-size}: the two writes then differ only by governance.
     */
    static Timed plain(Path dir, Workload w) throws Exception {
        FileStoreTable created = BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(w.buckets()));
        Map<String, String> options = new HashMap<>(
                WriteFootprint.plan(created, w.budgetBytes(), GovernanceOptions.of(Map.of()).pageSize()).tableOptions());
        options.put(CoreOptions.WRITE_BUFFER_SIZE.key(), Long.toString(w.budgetBytes()));
        FileStoreTable table = created.copy(options);
        BenchTables.Rows rows = new BenchTables.Rows(42, w.rows(), w.valueBytes());
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        long start = System.nanoTime();
        List<CommitMessage> messages;
        try (BatchTableWrite write = builder.newWrite()) {
            for (int i = 0; i < w.rows(); i++) {
                write.write(rows.next());
            }
            messages = write.prepareCommit();
            long millis = (System.nanoTime() - start) / 1_000_000;
            try (BatchTableCommit commit = builder.newCommit()) {
                commit.commit(messages);
            }
            return new Timed(millis, null);
        }
    }

    /** One governed write under {@code budgetBytes}, spilling under {@code dir}. */
    static Timed governed(Path dir, Workload w, long budgetBytes) throws Exception {
        FileStoreTable table = BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(w.buckets()));
        BenchTables.Rows rows = new BenchTables.Rows(42, w.rows(), w.valueBytes());
        long start = System.nanoTime();
        GovernedTableWrite write = BenchTables.governedWrite(table, "throughput", budgetBytes, dir, Map.of());
        long millis;
        try (write) {
            for (int i = 0; i < w.rows(); i++) {
                write.write(rows.next());
            }
            var prepared = write.prepareCommit();
            millis = (System.nanoTime() - start) / 1_000_000;
            prepared.commit();
        }
        return new Timed(millis, write.metrics());
    }
}
