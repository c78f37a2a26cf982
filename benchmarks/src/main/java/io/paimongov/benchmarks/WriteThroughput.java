package io.paimongov.benchmarks;

import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.GovernedTableWrite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.disk.IOManager;
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
 *       against plain Paimon ({@code table.newBatchWriteBuilder().newWrite()} with an IOManager,
 *       {@code write-buffer-size} = the same bytes and every table option the governed write sets
 *       for that budget, {@link PlainSettings#sameAsGoverned}). The budget holds the whole input,
 *       so neither spills; what is left is the cost of governing. Plain Paimon with its defaults
 *       ({@link PlainSettings#defaults}) runs beside them as a second line.
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
 * the medians are compared (with three settings, the one that goes first rotates). Not thread-safe;
 * one run at a time.
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

    /**
     * P1. {@code ratio} = T(plain) / T(governed): governed throughput over plain throughput, plain
     * with the governed write's settings; {@code ratioDefaults} the same against plain with its
     * defaults.
     */
    public record P1(Setting plain, Setting plainDefaults, Setting governed, double ratio, double ratioDefaults) {}

    /**
     * P4. {@code throughputRatio} = T(in memory) / T(spilling). The spill bytes come from one more,
     * untimed, spilling write: {@code writtenSpillBytes}, what the JVM saw written to files under its
     * spill directory ({@link FileWrites}), and {@code countedSpillBytes}, the same write's own count
     * ({@code spillBytes}); {@code inputBytes} is the rows' size in Paimon's binary row format,
     * computed from the rows ({@link BenchTables.Rows#binaryBytes}).
     */
    public record P4(Setting inMemory, Setting spilling, long spillBudgetBytes, double throughputRatio, long inputBytes,
            long writtenSpillBytes, long countedSpillBytes) {

        /** Written spill bytes / input bytes: the bound, measured from outside the runtime. */
        public double writtenSpillBytesRatio() {
            return (double) writtenSpillBytes / Math.max(1, inputBytes);
        }

        /** The runtime's own spill bytes / input bytes. */
        public double countedSpillBytesRatio() {
            return (double) countedSpillBytes / Math.max(1, inputBytes);
        }
    }

    /** One timed run: its milliseconds and the write's final metrics (null for plain Paimon). */
    record Timed(long millis, MetricsSnapshot metrics) {}

    private interface Run {
        Timed once(Path dir) throws Exception;
    }

    private WriteThroughput() {}

    /** P1: governed and plain writes of {@code w} (plain with the governed settings and with its defaults), rotating, under {@code workDir}. */
    public static P1 governedVsPlain(Path workDir, Workload w) throws Exception {
        List<Setting> all = alternate(workDir, w.repetitions(),
                List.of(dir -> plain(dir, w, true), dir -> plain(dir, w, false), dir -> governed(dir, w, w.budgetBytes())));
        long governed = Math.max(1, all.get(2).medianMillis());
        return new P1(all.get(0), all.get(1), all.get(2), (double) all.get(0).medianMillis() / governed,
                (double) all.get(1).medianMillis() / governed);
    }

    /**
     * P4: governed writes of {@code w} with the budget {@code w.budgetBytes()} and with {@code
     * budgetPercent}% of the input bytes (computed from the rows), then one untimed spilling write
     * whose spill files are observed.
     */
    public static P4 spillingVsInMemory(Path workDir, Workload w, double budgetPercent) throws Exception {
        long inputBytes = BenchTables.Rows.binaryBytes(w.rows(), w.valueBytes());
        long spillBudget = (long) (inputBytes * budgetPercent / 100);
        List<Setting> both =
                alternate(workDir, w.repetitions(), List.of(dir -> governed(dir, w, w.budgetBytes()), dir -> governed(dir, w, spillBudget)));
        Path observed = workDir.resolve("observed");
        long written;
        Timed run;
        try (FileWrites writes = FileWrites.start(workDir.resolve("file-writes.jfr"))) {
            run = governed(observed, w, spillBudget);
            written = writes.bytesUnder(observed, observed.resolve("warehouse"));
        }
        BenchTables.deleteTree(observed);
        return new P4(both.get(0), both.get(1), spillBudget, (double) both.get(0).medianMillis() / Math.max(1, both.get(1).medianMillis()),
                inputBytes, written, run.metrics().spillBytes());
    }

    /**
     * Warm-up of each, then {@code repetitions} rounds, round {@code r} starting with setting {@code
     * r mod n} (two settings alternate); the settings' medians, in the order given.
     */
    private static List<Setting> alternate(Path workDir, int repetitions, List<Run> runs) throws Exception {
        int n = runs.size();
        List<List<Long>> times = new ArrayList<>();
        MetricsSnapshot[] last = new MetricsSnapshot[n];
        for (int i = 0; i < n; i++) {
            times.add(new ArrayList<>());
            Path dir = workDir.resolve("warm-up-" + i);
            runs.get(i).once(dir);
            BenchTables.deleteTree(dir);
        }
        for (int rep = 0; rep < repetitions; rep++) {
            for (int j = 0; j < n; j++) {
                int i = (rep + j) % n;
                Path dir = workDir.resolve("run-" + i + "-" + rep);
                Timed s = runs.get(i).once(dir);
                times.get(i).add(s.millis());
                last[i] = s.metrics();
                BenchTables.deleteTree(dir);
            }
        }
        List<Setting> settings = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            settings.add(new Setting(BenchTables.median(times.get(i)), last[i]));
        }
        return settings;
    }

    /**
     * One plain Paimon write with an IOManager (spilling under {@code dir}, as the governed write's),
     * with every table option the governed write sets for the same budget and that budget as {@code
     * write-buffer-size} ({@code same}), so that the two writes differ only by governance; or with
     * Paimon's defaults and that write buffer.
     */
    static Timed plain(Path dir, Workload w, boolean same) throws Exception {
        FileStoreTable created = BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(w.buckets()));
        FileStoreTable table = created.copy(same ? PlainSettings.sameAsGoverned(created, w.budgetBytes()) : PlainSettings.defaults(w.budgetBytes()));
        BenchTables.Rows rows = new BenchTables.Rows(42, w.rows(), w.valueBytes());
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        IOManager io = IOManager.create(Files.createDirectories(dir.resolve("io")).toString());
        long start = System.nanoTime();
        List<CommitMessage> messages;
        try (BatchTableWrite write = builder.newWrite().withIOManager(io)) {
            for (int i = 0; i < w.rows(); i++) {
                write.write(rows.next());
            }
            messages = write.prepareCommit();
            long millis = (System.nanoTime() - start) / 1_000_000;
            try (BatchTableCommit commit = builder.newCommit()) {
                commit.commit(messages);
            }
            return new Timed(millis, null);
        } finally {
            io.close();
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
