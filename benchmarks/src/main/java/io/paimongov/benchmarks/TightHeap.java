package io.paimongov.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

/**
 * P3: the same write in child JVMs with a tight {@code -Xmx}: governed, plain Paimon with every
 * setting a user could give it to match the governed write, and plain Paimon with its defaults. The
 * question is whether the governed write completes and stays in its budget on the heap, which the
 * children measure from outside the accounting ({@link LiveHeapSampler}); the plain children's
 * outcomes are reported beside it.
 *
 * <p>The table is an append table of {@link #BUCKETS} buckets in Parquet, the case the memory that
 * {@code write-buffer-size} does not bound is largest in: every (partition, bucket) keeps an open
 * Parquet writer, and each buffers a row group in memory until it reaches {@code file.block-size}
 * (128 MiB by default). The governed child sets {@code file.block-size} = budget / 64 ({@link
 * #governedRowGroup}) and plans the rest from its budget; the plain child gets that row group and
 * every other table option the governed write sets ({@link PlainSettings#sameAsGoverned}) and an
 * IOManager; the plain-defaults child gets only {@code write-buffer-size} = the budget. Every child
 * gets {@code -Xmx} = {@code -Xms} = {@code heapBytes}, the serial collector and {@code
 * -XX:+ExitOnOutOfMemoryError} ({@link ChildJvm}), and the same sampler, whose collections are on
 * every child's clock alike.
 *
 * <p>The sizes are fixed before a run and the same in every preset but the tests': the heap is four
 * budgets, and the input (rows x (value + key) bytes) about as large as the heap, so that a write
 * that holds its input cannot fit. A child that commits prints {@code SURVIVED} and its heap
 * readings. Not thread-safe; one run at a time.
 */
public final class TightHeap {

    public static final int BUCKETS = 32;
    static final String SURVIVED = "SURVIVED";
    static final String GOVERNED = "governed";
    static final String PLAIN = "plain";
    static final String PLAIN_DEFAULTS = "plain-defaults";
    /** The children's periodic sampling; the old-generation step is the budget over 32. */
    static final long SAMPLE_MILLIS = 1000;

    /** How a child ended. */
    public enum Outcome {
        /** The write committed. */
        SURVIVED,
        /** The JVM ran out of heap. */
        OUT_OF_MEMORY,
        /** Another failure; see the child's output. */
        FAILED,
        /** Still running at the time limit; killed. */
        TIMED_OUT
    }

    /**
     * The workload and the heap.
     *
     * @param rows rows written
     * @param valueBytes bytes of each value
     * @param budgetBytes the governed write's budget, and both writes' {@code write-buffer-size}
     * @param heapBytes the children's {@code -Xmx}
     * @param timeoutSeconds the most a child may run
     */
    public record Workload(int rows, int valueBytes, long budgetBytes, long heapBytes, long timeoutSeconds) {}

    /**
     * @param governed the governed child
     * @param plain the plain child with the governed write's settings
     * @param plainDefaults the plain child with Paimon's defaults
     */
    public record Result(Child governed, Child plain, Child plainDefaults) {

        public boolean governedSurvived() {
            return governed.outcome() == Outcome.SURVIVED;
        }
    }

    /**
     * How one child ended, its wall time (JVM start included), its output (stdout and stderr) and,
     * when it survived, its heap readings ({@code liveHeapPeakBytes} above its baseline, {@code
     * heapSamples}); -1 when it did not.
     */
    public record Child(Outcome outcome, long millis, String output, long liveHeapPeakBytes, long heapSamples) {

        /** Its live heap peak above its baseline over {@code budgetBytes}; null when it did not survive. */
        public Double heapPeakOverBudget(long budgetBytes) {
            return outcome == Outcome.SURVIVED ? (double) liveHeapPeakBytes / budgetBytes : null;
        }

        /** Its last {@code lines} lines of output, for the report. */
        public String tail(int lines) {
            return ChildJvm.tail(output, lines);
        }
    }

    private TightHeap() {}

    /** Runs the governed child, then the plain one, then plain with defaults, each on a table of its own under {@code workDir}. */
    public static Result run(Path workDir, Workload w) throws Exception {
        Child governed = child(workDir.resolve(GOVERNED), GOVERNED, w);
        Child plain = child(workDir.resolve(PLAIN), PLAIN, w);
        Child plainDefaults = child(workDir.resolve(PLAIN_DEFAULTS), PLAIN_DEFAULTS, w);
        return new Result(governed, plain, plainDefaults);
    }

    /**
     * Runs one child, {@code mode} {@code governed}, {@code plain} or {@code plain-defaults}, with
     * its warehouse under {@code dir}, then removes {@code dir}.
     */
    static Child child(Path dir, String mode, Workload w) throws Exception {
        ChildJvm.Ended ended = ChildJvm.run(dir, w.heapBytes(), w.timeoutSeconds(), TightHeap.class, List.of(
                mode, dir.resolve("warehouse").toString(), Integer.toString(w.rows()), Integer.toString(w.valueBytes()),
                Long.toString(w.budgetBytes())));
        BenchTables.deleteTree(dir);
        Outcome outcome = ended.timedOut() ? Outcome.TIMED_OUT : classify(ended.exitCode(), ended.output());
        String line = outcome == Outcome.SURVIVED ? ended.output().lines().filter(l -> l.startsWith(SURVIVED)).findFirst().orElseThrow() : "";
        return new Child(outcome, ended.millis(), ended.output(), value(line, "liveHeapPeakBytes"), value(line, "heapSamples"));
    }

    /** The value of {@code key=} in the result line; -1 when absent. */
    static long value(String line, String key) {
        for (String pair : line.split(" ")) {
            if (pair.startsWith(key + "=")) {
                return Long.parseLong(pair.substring(key.length() + 1));
            }
        }
        return -1;
    }

    /**
     * The governed child's {@code file.block-size}: budget / 64. The planner's default, budget / 32,
     * does not fit 32 open writers (32 row groups are the whole budget, before the compaction
     * reservation and each writer's overhead), so the write would stop with {@code
     * ResourceExhaustedException}; see docs/performance.md.
     */
    static long governedRowGroup(long budgetBytes) {
        return Math.max(64 << 10, budgetBytes / (2L * BUCKETS));
    }

    static Outcome classify(int exitCode, String output) {
        if (output.contains(ChildJvm.OOM)) {
            return Outcome.OUT_OF_MEMORY;
        }
        if (exitCode == 0 && output.lines().anyMatch(l -> l.startsWith(SURVIVED))) {
            return Outcome.SURVIVED;
        }
        return Outcome.FAILED;
    }

    /**
     * The child: {@code governed|plain|plain-defaults WAREHOUSE ROWS VALUE_BYTES BUDGET_BYTES}.
     * Writes the rows into a new {@value #BUCKETS}-bucket append table, commits and prints {@code
     * SURVIVED rows=N liveHeapPeakBytes=B heapSamples=S}. An {@code OutOfMemoryError} ends the JVM
     * (it runs with {@code -XX:+ExitOnOutOfMemoryError}).
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: TightHeap governed|plain|plain-defaults WAREHOUSE ROWS VALUE_BYTES BUDGET_BYTES");
            System.exit(2);
        }
        String mode = args[0];
        Path warehouse = Path.of(args[1]);
        int rows = Integer.parseInt(args[2]);
        int valueBytes = Integer.parseInt(args[3]);
        long budget = Long.parseLong(args[4]);
        FileStoreTable created = BenchTables.create(warehouse, BenchTables.Shape.append(BUCKETS));
        BenchTables.Rows generator = new BenchTables.Rows(11, rows, valueBytes);
        Path spill = Files.createDirectories(warehouse.resolveSibling("spill"));
        long baseline = LiveHeap.settled();
        LiveHeapSampler sampler = new LiveHeapSampler(SAMPLE_MILLIS, budget / 32, null);
        sampler.start();
        if (mode.equals(GOVERNED)) {
            // The write buffer as both plain children have it (the governed write's own buffer is its budget's pages).
            FileStoreTable table = created.copy(PlainSettings.defaults(budget))
                    .copy(Map.of("file.block-size", Long.toString(governedRowGroup(budget))));
            try (var write = BenchTables.governedWrite(table, "tight-heap", budget, spill, Map.of())) {
                for (int i = 0; i < rows; i++) {
                    write.write(generator.next());
                }
                sampler.sampleNow();
                write.prepareCommit().commit();
            }
        } else {
            FileStoreTable table = mode.equals(PLAIN)
                    ? plainTable(created, budget)
                    : created.copy(PlainSettings.defaults(budget));
            IOManager io = IOManager.create(spill.toString());
            BatchWriteBuilder builder = table.newBatchWriteBuilder();
            try (BatchTableWrite write = builder.newWrite().withIOManager(io); BatchTableCommit commit = builder.newCommit()) {
                for (int i = 0; i < rows; i++) {
                    write.write(generator.next());
                }
                sampler.sampleNow();
                commit.commit(write.prepareCommit());
            } finally {
                io.close();
            }
        }
        sampler.stop();
        System.out.println(SURVIVED + " rows=" + rows + " liveHeapPeakBytes=" + (sampler.peakBytes() - baseline) + " heapSamples="
                + sampler.samples());
    }

    /** Plain Paimon's table with the governed child's row group and every other option the governed write sets. */
    static FileStoreTable plainTable(FileStoreTable created, long budget) {
        FileStoreTable withRowGroup = created.copy(Map.of("file.block-size", Long.toString(governedRowGroup(budget))));
        return withRowGroup.copy(PlainSettings.sameAsGoverned(withRowGroup, budget));
    }
}
