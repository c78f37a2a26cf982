package io.paimongov.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

/**
 * P3: the same write in a child JVM with a tight {@code -Xmx}, governed and plain. The governed
 * write completes; plain Paimon with the same nominal write buffer runs out of memory.
 *
 * <p>The table is an append table of {@link #BUCKETS} buckets in Parquet, the case the memory that
 * {@code write-buffer-size} does not bound is largest in: every (partition, bucket) keeps an open
 * Parquet writer, and each buffers a row group in memory until it reaches {@code file.block-size}
 * (128 MiB by default) — so plain Paimon holds up to 32 row groups at once whatever the write buffer
 * says. The governed write plans {@code file.block-size} from its budget (budget / 32) and reserves
 * each open writer's row group, closing the largest writer when a new one does not fit. Both
 * children get {@code write-buffer-size} = the budget; both get {@code -Xmx} = {@code heapBytes},
 * {@code -Xms} the same, the serial collector (a small heap fails fast instead of thrashing) and
 * {@code -XX:+ExitOnOutOfMemoryError}, so an {@code OutOfMemoryError} in any thread (Paimon writes
 * from other threads too) ends the child with the JVM's own message.
 *
 * <p>The child is started by {@link ChildJvm} (this JVM's binary and class path); it prints {@code
 * SURVIVED} on stdout when its write committed. Not thread-safe; one run at a time.
 */
public final class TightHeap {

    public static final int BUCKETS = 32;
    static final String SURVIVED = "SURVIVED";

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
     * @param governed how the governed child ended
     * @param plain how the plain child ended
     * @param governedMillis the governed child's wall time, JVM start included
     * @param plainMillis the plain child's wall time, JVM start included
     * @param plainTail the last lines of the plain child's output (its OutOfMemoryError), for the report
     */
    public record Result(Outcome governed, Outcome plain, long governedMillis, long plainMillis, String plainTail) {

        public boolean governedSurvived() {
            return governed == Outcome.SURVIVED;
        }

        public boolean plainOutOfMemory() {
            return plain == Outcome.OUT_OF_MEMORY;
        }
    }

    /** How one child ended, its wall time and its output (stdout and stderr). */
    record Child(Outcome outcome, long millis, String output) {}

    private TightHeap() {}

    /** Runs the governed child, then the plain one, each on a table of its own under {@code workDir}. */
    public static Result run(Path workDir, Workload w) throws Exception {
        Child governed = child(workDir.resolve("governed"), "governed", w);
        Child plain = child(workDir.resolve("plain"), "plain", w);
        return new Result(governed.outcome(), plain.outcome(), governed.millis(), plain.millis(), ChildJvm.tail(plain.output(), 2));
    }

    /**
     * Runs one child, {@code mode} {@code governed} or {@code plain}, with its warehouse under
     * {@code dir}, then removes {@code dir}.
     */
    static Child child(Path dir, String mode, Workload w) throws Exception {
        ChildJvm.Ended ended = ChildJvm.run(dir, w.heapBytes(), w.timeoutSeconds(), TightHeap.class, List.of(
                mode, dir.resolve("warehouse").toString(), Integer.toString(w.rows()), Integer.toString(w.valueBytes()),
                Long.toString(w.budgetBytes())));
        BenchTables.deleteTree(dir);
        Outcome outcome = ended.timedOut() ? Outcome.TIMED_OUT : classify(ended.exitCode(), ended.output());
        return new Child(outcome, ended.millis(), ended.output());
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
     * The child: {@code governed|plain WAREHOUSE ROWS VALUE_BYTES BUDGET_BYTES}. Writes the rows into
     * a new {@value #BUCKETS}-bucket append table, commits and prints {@code SURVIVED rows=N}. An
     * {@code OutOfMemoryError} ends the JVM (it runs with {@code -XX:+ExitOnOutOfMemoryError}).
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: TightHeap governed|plain WAREHOUSE ROWS VALUE_BYTES BUDGET_BYTES");
            System.exit(2);
        }
        boolean governed = args[0].equals("governed");
        Path warehouse = Path.of(args[1]);
        int rows = Integer.parseInt(args[2]);
        int valueBytes = Integer.parseInt(args[3]);
        long budget = Long.parseLong(args[4]);
        FileStoreTable table =
                BenchTables.create(warehouse, BenchTables.Shape.append(BUCKETS))
                        .copy(Map.of(CoreOptions.WRITE_BUFFER_SIZE.key(), Long.toString(budget)));
        BenchTables.Rows generator = new BenchTables.Rows(11, rows, valueBytes);
        if (governed) {
            table = table.copy(Map.of("file.block-size", Long.toString(governedRowGroup(budget))));
            Path spill = Files.createDirectories(warehouse.resolveSibling("spill"));
            try (var write = BenchTables.governedWrite(table, "tight-heap", budget, spill, Map.of())) {
                for (int i = 0; i < rows; i++) {
                    write.write(generator.next());
                }
                write.prepareCommit().commit();
            }
        } else {
            BatchWriteBuilder builder = table.newBatchWriteBuilder();
            try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
                for (int i = 0; i < rows; i++) {
                    write.write(generator.next());
                }
                commit.commit(write.prepareCommit());
            }
        }
        System.out.println(SURVIVED + " rows=" + rows);
    }
}
