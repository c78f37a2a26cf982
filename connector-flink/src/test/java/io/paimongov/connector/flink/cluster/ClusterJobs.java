package io.paimongov.connector.flink.cluster;

import io.paimongov.connector.flink.sink.GovernedPaimonSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;

/**
 * The jobs the cluster tests submit and the models they are checked against. The job classes run
 * in the TaskManager JVMs (they find them on the class path the cluster was started with), so
 * nothing here may rely on the test JVM's static state: the test and a job talk through files.
 */
final class ClusterJobs {

    private ClusterJobs() {}

    /**
     * A remote environment on {@code cluster}: streaming, checkpoints every {@code checkpointMillis},
     * fixed-delay restarts ({@code attempts}, 500 ms apart).
     */
    static StreamExecutionEnvironment environment(ProcessCluster cluster, int parallelism, long checkpointMillis, int attempts) {
        Configuration config = new Configuration();
        config.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment("127.0.0.1", cluster.restPort(), config);
        env.enableCheckpointing(checkpointMillis);
        env.setParallelism(parallelism);
        return env;
    }

    /** The value of index {@code i}: "v" + i, padded to {@code bytes} characters so that rows fill pages. */
    static String value(long i, int bytes) {
        StringBuilder v = new StringBuilder("v").append(i).append('-');
        while (v.length() < bytes) {
            v.append((char) ('a' + (i + v.length()) % 26));
        }
        return v.toString();
    }

    /** The row of index {@code i}: (p = i mod 2, k = i, v = value(i)). */
    static InternalRow row(long i, int bytes) {
        return GenericRow.of((int) (i % 2), (int) i, BinaryString.fromString(value(i, bytes)));
    }

    /** The model of a table holding the rows of indices 0 to n-1 once each, in {@link #rows}' form. */
    static List<String> modelRows(long n, int bytes) {
        List<String> rows = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            rows.add(describe(row(i, bytes)));
        }
        return rows;
    }

    /** Every row of {@code table} (duplicates kept), as "p/k/v". */
    static List<String> rows(FileStoreTable table) throws Exception {
        List<String> rows = new ArrayList<>();
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(row -> rows.add(describe(row)));
        }
        return rows;
    }

    /**
     * Checks {@code actual} against {@code model} as multisets; a failure names the counts and the
     * first rows missing and the first rows unexpected or repeated, not the whole tables.
     *
     * @throws AssertionError when they differ
     */
    static void assertSameRows(String what, List<String> actual, List<String> model) {
        Map<String, Integer> surplus = new HashMap<>();
        actual.forEach(r -> surplus.merge(r, 1, Integer::sum));
        List<String> missing = new ArrayList<>();
        for (String r : model) {
            if (surplus.merge(r, -1, Integer::sum) < 0) {
                missing.add(r);
            }
        }
        List<String> unexpected = new ArrayList<>();
        surplus.forEach((r, n) -> {
            for (int i = 0; i < n; i++) {
                unexpected.add(r);
            }
        });
        if (!missing.isEmpty() || !unexpected.isEmpty()) {
            throw new AssertionError(what + ": " + actual.size() + " rows, the model " + model.size() + "; missing "
                    + missing.size() + " " + first(missing) + "; unexpected or repeated " + unexpected.size() + " " + first(unexpected));
        }
    }

    private static List<String> first(List<String> rows) {
        return rows.stream().sorted().limit(5).map(r -> r.length() > 40 ? r.substring(0, 40) + "..." : r).toList();
    }

    private static String describe(InternalRow row) {
        return row.getInt(0) + "/" + row.getInt(1) + "/" + row.getString(2);
    }

    /**
     * Adds the held job: the indices 0 to n-1 of Flink's checkpointed {@link DataGeneratorSource},
     * {@code perCheckpoint} of them per completed checkpoint (so the data advances with checkpoints
     * and index {@code holdAt} &gt;= {@code perCheckpoint} comes only after one completed), held at
     * {@code holdAt} (see {@link Hold}), written through {@link GovernedPaimonSink} into {@code
     * table}. Parallelism 1: the whole job in one slot of one TaskManager.
     */
    static void heldJob(StreamExecutionEnvironment env, FileStoreTable table, long n, int perCheckpoint, long holdAt, Path held,
            Path release, int bytes, Map<String, String> options) {
        DataGeneratorSource<Long> indices =
                new DataGeneratorSource<>(i -> i, n, RateLimiterStrategy.perCheckpoint(perCheckpoint), Types.LONG);
        GovernedPaimonSink.write(
                env.fromSource(indices, WatermarkStrategy.noWatermarks(), "indices").map(new Hold(holdAt, held.toString(), release.toString())),
                i -> row(i, bytes),
                table,
                options);
    }

    /**
     * Passes indices on; at {@code holdAt}, unless the release file exists, creates the held file
     * and waits for the release file. The task's thread waits, so the governed writer chained
     * behind it keeps the rows it buffered since the last checkpoint in its pages: the managed
     * memory it holds is visible to the REST metrics for as long as the test needs. An attempt
     * that reaches {@code holdAt} after the release passes at once.
     */
    static final class Hold implements MapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final long holdAt;
        private final String held;
        private final String release;

        Hold(long holdAt, String held, String release) {
            this.holdAt = holdAt;
            this.held = held;
            this.release = release;
        }

        @Override
        public Long map(Long i) throws Exception {
            if (i == holdAt && !Files.exists(Path.of(release))) {
                Files.writeString(Path.of(held), Long.toString(ProcessHandle.current().pid()));
                while (!Files.exists(Path.of(release))) {
                    Thread.sleep(20);
                }
            }
            return i;
        }
    }
}
