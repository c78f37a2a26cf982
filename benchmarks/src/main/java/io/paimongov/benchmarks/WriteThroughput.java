package io.paimongov.benchmarks;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.config.Sizes;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.WriteFootprint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.data.InternalRow;
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
 *       row size, the write's {@code inputBytes}), which spills; beside them, timed in the same
 *       rounds, the in-memory write given the spilling write's row group (what the small budget
 *       costs the data files, not the spill) and {@link PlainExternalSort}, the spill's rows
 *       written and merged by a plain external sort with the spilling write's runs, fan-in, block
 *       and codec (what the disk and the codec allow a spill).
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
     * P4, medians of the same rounds.
     *
     * @param inMemory the write under the budget that holds the input
     * @param spilling the write under the spilling budget
     * @param inMemoryRowGroup the in-memory write with the row group the spilling budget plans
     *     ({@code file.block-size} set on its table)
     * @param externalSort {@link PlainExternalSort} of the spilling write's spill (no metrics)
     * @param spillBudgetBytes the spilling write's budget
     * @param rowGroupBytes the row group the spilling budget plans
     * @param fanIn the spill merge fan-in the spilling budget plans
     * @param spillRuns runs the spilling write spilled (the observed write before the rounds),
     *     as many as the external sort writes
     * @param externalSortBytes what the external sort wrote to its files (the last round's)
     * @param inputBytes the rows' size in Paimon's binary row format, computed from the rows ({@link
     *     BenchTables.Rows#binaryBytes})
     * @param writtenSpillBytes what the JVM saw written to files under the spill directory of an
     *     untimed spilling write before the rounds ({@link FileWrites}): the bound, measured from outside
     * @param countedSpillBytes the same write's own count ({@code spillBytes})
     * @param throughputRatio T(in memory) / T(spilling)
     * @param rowGroupRatio T(in memory with the spilling row group) / T(spilling): what is left of
     *     the gap once both write the same data files
     * @param limitRatio T(in memory) / (T(in memory) + T(external sort)): the throughput ratio of a
     *     spilling write that added nothing to the in-memory one but the spill's disk and codec work
     * @param rowGroupLimitRatio the same limit for writes of the spilling row group: T(in memory with
     *     that row group) / (that + T(external sort)), which {@code rowGroupRatio} is read against
     */
    public record P4(
            Setting inMemory,
            Setting spilling,
            Setting inMemoryRowGroup,
            Setting externalSort,
            long spillBudgetBytes,
            long rowGroupBytes,
            int fanIn,
            long spillRuns,
            long externalSortBytes,
            long inputBytes,
            long writtenSpillBytes,
            long countedSpillBytes,
            double throughputRatio,
            double rowGroupRatio,
            double limitRatio,
            double rowGroupLimitRatio) {

        /** Written spill bytes / input bytes: the bound, measured from outside the runtime. */
        public double writtenSpillBytesRatio() {
            return (double) writtenSpillBytes / Math.max(1, inputBytes);
        }

        /** The runtime's own spill bytes / input bytes. */
        public double countedSpillBytesRatio() {
            return (double) countedSpillBytes / Math.max(1, inputBytes);
        }

        /** {@code throughputRatio / limitRatio}: how close the spilling write comes to the limit (1 = at it). */
        public double ofLimit() {
            return throughputRatio / limitRatio;
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
     * budgetPercent}% of the input bytes (computed from the rows), the in-memory write with the
     * spilling budget's row group, and the plain external sort of the spilling write's spill, in the
     * same rounds; before them one untimed spilling write whose spill files are observed and whose
     * runs the external sort writes.
     */
    public static P4 spillingVsInMemory(Path workDir, Workload w, double budgetPercent) throws Exception {
        long inputBytes = BenchTables.Rows.binaryBytes(w.rows(), w.valueBytes());
        long spillBudget = (long) (inputBytes * budgetPercent / 100);
        Path observed = workDir.resolve("observed");
        long written;
        Timed run;
        try (FileWrites writes = FileWrites.start(workDir.resolve("file-writes.jfr"))) {
            run = governed(observed, w, spillBudget);
            written = writes.bytesUnder(observed, observed.resolve("warehouse"));
        }
        BenchTables.deleteTree(observed);
        long spillRuns = run.metrics().spillCount();

        FileStoreTable table = BenchTables.create(workDir.resolve("plan"), BenchTables.Shape.primaryKey(w.buckets()));
        WriteFootprint planned = WriteFootprint.plan(table, spillBudget, pageSize(spillBudget));
        long rowGroup = Sizes.parse("file.block-size", planned.tableOptions().get("file.block-size"));
        int fanIn = Integer.parseInt(planned.tableOptions().get(CoreOptions.LOCAL_SORT_MAX_NUM_FILE_HANDLES.key()));
        int zstdLevel = new CoreOptions(table.options()).spillCompressOptions().zstdLevel();
        PlainExternalSort.Plan sort = new PlainExternalSort.Plan(
                spillRuns, fanIn, planned.spillBlockBytes(), new CompressOptions(planned.spillRunCodec(), zstdLevel));
        PlainExternalSort.Input input = PlainExternalSort.prepare(table, rows(w), sort);
        BenchTables.deleteTree(workDir.resolve("plan"));

        long[] sortBytes = new long[1];
        Map<String, String> rowGroupOption = Map.of("file.block-size", Long.toString(rowGroup));
        List<Setting> s = alternate(
                workDir,
                w.repetitions(),
                List.of(
                        dir -> governed(dir, w, w.budgetBytes()),
                        dir -> governed(dir, w, spillBudget),
                        dir -> governed(dir, w, w.budgetBytes(), rowGroupOption),
                        dir -> {
                            long start = System.nanoTime();
                            PlainExternalSort.Result r = PlainExternalSort.run(dir, input, sort, (bucket, bytes, offset, length) -> {});
                            sortBytes[0] = r.fileBytes();
                            return new Timed((System.nanoTime() - start) / 1_000_000, null);
                        }));
        long inMemory = s.get(0).medianMillis();
        long spilling = Math.max(1, s.get(1).medianMillis());
        long inMemoryRowGroup = s.get(2).medianMillis();
        long sorting = s.get(3).medianMillis();
        return new P4(
                s.get(0),
                s.get(1),
                s.get(2),
                s.get(3),
                spillBudget,
                rowGroup,
                fanIn,
                spillRuns,
                sortBytes[0],
                inputBytes,
                written,
                run.metrics().spillBytes(),
                (double) inMemory / spilling,
                (double) inMemoryRowGroup / spilling,
                (double) inMemory / Math.max(1, inMemory + sorting),
                (double) inMemoryRowGroup / Math.max(1, inMemoryRowGroup + sorting));
    }

    /** The page size a governed write under {@code budgetBytes} takes by default ({@code auto}). */
    private static int pageSize(long budgetBytes) {
        return GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, Long.toString(budgetBytes))).pageSize();
    }

    /** The rows every write of {@code w} writes, as an iterable (generated again on each pass). */
    private static Iterable<InternalRow> rows(Workload w) {
        return () -> new Iterator<>() {
            private final BenchTables.Rows rows = new BenchTables.Rows(42, w.rows(), w.valueBytes());
            private int given;

            @Override
            public boolean hasNext() {
                return given < w.rows();
            }

            @Override
            public InternalRow next() {
                if (given == w.rows()) {
                    throw new NoSuchElementException();
                }
                given++;
                return rows.next();
            }
        };
    }

    /**
     * A warm-up of each setting in turn, then {@code repetitions} rounds, each running every setting
     * once and starting one setting later than the round before; the settings' medians, in the order
     * given.
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
        return governed(dir, w, budgetBytes, Map.of());
    }

    /** The same into a table with {@code tableOptions} set. */
    static Timed governed(Path dir, Workload w, long budgetBytes, Map<String, String> tableOptions) throws Exception {
        BenchTables.Shape shape = BenchTables.Shape.primaryKey(w.buckets());
        for (Map.Entry<String, String> option : tableOptions.entrySet()) {
            shape = shape.with(option.getKey(), option.getValue());
        }
        FileStoreTable table = BenchTables.create(dir.resolve("warehouse"), shape);
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
