package io.paimongov.benchmarks;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.GovernedTableWrite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

/**
 * Backlog drain time with 1, 2 and -1 compaction threads, side by side in one run.
 *
 * <p>How: one primary-key table of {@value #BUCKETS} buckets gets a level-0 backlog from plain
 * write-only commits (every bucket holds {@code commits} sorted runs, past Paimon's compaction
 * trigger). For each setting, a copy of that warehouse is drained by a governed write that touches
 * every bucket and commits; the time is its {@code prepareCommit}, when the writer is idle and
 * only compaction works. One untimed round warms the JVM up first; then the settings alternate,
 * each repetition starting with the next setting, and the medians are compared, since one
 * machine's noise and the JIT's warm-up then fall on all settings alike.
 */
public final class CompactionDrain {

    public static final int BUCKETS = 8;
    private static final List<String> SETTINGS = List.of("1", "2", "-1");

    /**
     * @param medianMillis drain time per setting ("1", "2", "-1"), median over the repetitions
     * @param compactions compactions completed per drain, per setting (the last repetition)
     * @param peakRunning the most compactions at once, per setting (the last repetition)
     */
    public record Result(
            Map<String, Long> medianMillis, Map<String, Long> compactions, Map<String, Long> peakRunning, int repetitions) {

        /** T(1 thread) / T(2 threads). */
        public double speedup() {
            return (double) medianMillis.get("1") / Math.max(1, medianMillis.get("2"));
        }

        /** T(1 thread) / T(one thread per active bucket). */
        public double speedupPerBucket() {
            return (double) medianMillis.get("1") / Math.max(1, medianMillis.get("-1"));
        }
    }

    private CompactionDrain() {}

    /**
     * Builds the backlog under {@code workDir} and drains a copy of it {@code repetitions} times per
     * setting.
     */
    public static Result run(Path workDir, int rowsPerCommit, int commits, int repetitions) throws Exception {
        Path template = workDir.resolve("backlog");
        buildBacklog(template, rowsPerCommit, commits);
        Map<String, List<Long>> times = new LinkedHashMap<>();
        Map<String, Long> compactions = new LinkedHashMap<>();
        Map<String, Long> peak = new LinkedHashMap<>();
        for (String threads : SETTINGS) {
            Path warmUp = workDir.resolve("warm-up-" + threads.replace('-', 'm'));
            BenchTables.copyTree(template, warmUp);
            drain(warmUp, workDir, threads);
            BenchTables.deleteTree(warmUp);
        }
        for (int rep = 0; rep < repetitions; rep++) {
            for (int i = 0; i < SETTINGS.size(); i++) {
                String threads = SETTINGS.get((rep + i) % SETTINGS.size());
                Path copy = workDir.resolve("drain-" + threads.replace('-', 'm') + "-" + rep);
                BenchTables.copyTree(template, copy);
                MetricsSnapshot m = drain(copy, workDir, threads);
                times.computeIfAbsent(threads, t -> new ArrayList<>()).add(m.prepareCommitMillis());
                compactions.put(threads, m.compactionCount());
                peak.put(threads, m.compactionPeakRunning());
                BenchTables.deleteTree(copy);
            }
        }
        Map<String, Long> medians = new LinkedHashMap<>();
        for (String threads : SETTINGS) {
            medians.put(threads, BenchTables.median(times.get(threads)));
        }
        BenchTables.deleteTree(template);
        return new Result(medians, compactions, peak, repetitions);
    }

    /** Fills a new table in {@code warehouse} with {@code commits} write-only commits: a level-0 backlog. */
    static void buildBacklog(Path warehouse, int rowsPerCommit, int commits) throws Exception {
        FileStoreTable table = BenchTables.create(warehouse, BenchTables.Shape.primaryKey(BUCKETS));
        FileStoreTable writeOnly = table.copy(Map.of("write-only", "true"));
        Random random = new Random(42);
        for (int c = 0; c < commits; c++) {
            BatchWriteBuilder builder = writeOnly.newBatchWriteBuilder();
            try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commit = builder.newCommit()) {
                for (int i = 0; i < rowsPerCommit; i++) {
                    int k = random.nextInt(rowsPerCommit * 4);
                    write.write(GenericRow.of(k, BinaryString.fromString(value(random, c, i))));
                }
                commit.commit(write.prepareCommit());
            }
        }
    }

    private static String value(Random random, int commit, int row) {
        StringBuilder sb = new StringBuilder(64).append(commit).append(':').append(row).append(':');
        while (sb.length() < 64) {
            sb.append((char) ('a' + random.nextInt(26)));
        }
        return sb.toString();
    }

    private static MetricsSnapshot drain(Path warehouse, Path workDir, String threads) throws Exception {
        GovernedTableWrite write =
                BenchTables.governedWrite(
                        BenchTables.table(warehouse), "drain-" + threads, 256L << 20, workDir,
                        Map.of(GovernanceOptions.COMPACTION_TASK_THREADS, threads));
        try (write) {
            for (int k = 0; k < BUCKETS * 16; k++) {
                write.write(GenericRow.of(k, BinaryString.fromString("drain")));
            }
            write.prepareCommit().commit();
        }
        return write.metrics();
    }

}
