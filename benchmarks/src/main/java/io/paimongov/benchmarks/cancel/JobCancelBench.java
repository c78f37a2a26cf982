package io.paimongov.benchmarks.cancel;

import io.paimongov.benchmarks.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.spark.launcher.JavaModuleOptions;

/**
 * Cancel through the front door: Flink jobs ({@link JobCancel}) and Spark jobs ({@link
 * SparkCancel}) that write a Paimon table, cancelled mid-write, the governed writer beside Paimon's
 * own, each engine in a child JVM of its own ({@link CancelChild}), reported as the stable keys
 * {@code ./paimon-governance bench cancel --json} prints ({@link CancelReport}; docs/cli.md lists
 * them, docs/performance.md says how they are measured).
 *
 * <p>Not thread-safe; one run at a time.
 */
public final class JobCancelBench {

    /** The engines a run may measure. */
    public enum Engine {
        FLINK,
        SPARK
    }

    /** Heap of the Flink child: the MiniCluster's task and job managers; managed and network memory are off the heap. */
    static final long FLINK_HEAP_BYTES = 1L << 30;
    /** Heap of the Spark child: Spark's unified memory (the governed writes' pages) and plain Paimon's heap buffers. */
    static final long SPARK_HEAP_BYTES = 1536L << 20;

    /**
     * The sizes of a run, fixed before it starts.
     *
     * @param flink the Flink pairs
     * @param spark the Spark pairs
     */
    public record Sizes(JobCancel.Settings flink, SparkCancel.Settings spark) {

        /** 1,000,000 rows cancelled after 500,000, 20 pairs per engine: about 1.5 minutes on two cores. */
        public static Sizes full() {
            return ofPairs(20);
        }

        /** The same jobs, 6 pairs per engine: under a minute on two cores. */
        public static Sizes quick() {
            return ofPairs(6);
        }

        private static Sizes ofPairs(int pairs) {
            return new Sizes(
                    new JobCancel.Settings(1_000_000, 500_000, pairs, 128L << 20, 4),
                    new SparkCancel.Settings(1_000_000, 500_000, pairs, 2, 64L << 20, 4));
        }

        /** Seconds, for tests: every key is reported, the times mean little. */
        public static Sizes tiny() {
            return new Sizes(
                    new JobCancel.Settings(20_000, 5_000, 1, 32L << 20, 4),
                    new SparkCancel.Settings(20_000, 5_000, 1, 2, 16L << 20, 4));
        }

        /** These sizes with {@code pairs} pairs per engine. */
        public Sizes withPairs(int pairs) {
            return new Sizes(
                    new JobCancel.Settings(flink.rows(), flink.cancelAfterRows(), pairs, flink.managedMemoryBytes(), flink.buckets()),
                    new SparkCancel.Settings(spark.rows(), spark.cancelAfterRows(), pairs, spark.partitions(), spark.memoryBytes(), spark.buckets()));
        }

        /** These sizes with {@code rows} rows per job, cancelled after {@code cancelAfterRows}. */
        public Sizes withRows(long rows, long cancelAfterRows) {
            return new Sizes(
                    new JobCancel.Settings(rows, cancelAfterRows, flink.pairs(), flink.managedMemoryBytes(), flink.buckets()),
                    new SparkCancel.Settings(rows, cancelAfterRows, spark.pairs(), spark.partitions(), spark.memoryBytes(), spark.buckets()));
        }
    }

    private JobCancelBench() {}

    /**
     * Runs the pairs of each engine in {@code engines} under {@code workDir} (the caller removes it)
     * and returns the report values in key order. {@code progress} gets a line when a child starts
     * and the child's lines (one per pair) when it ends.
     *
     * @throws IllegalStateException when a child failed or timed out, with its last words
     */
    public static Map<String, Object> run(Path workDir, Sizes sizes, Set<Engine> engines, Consumer<String> progress) throws Exception {
        Map<String, Object> report = new LinkedHashMap<>();
        if (engines.contains(Engine.FLINK)) {
            JobCancel.Settings f = sizes.flink();
            progress.accept(String.format("flink: %d pairs of jobs (Paimon's sink, the governed sink) cancelled after %,d of %,d rows,"
                    + " in a child JVM ...", f.pairs(), f.cancelAfterRows(), f.rows()));
            CancelSample.Result result = child(workDir.resolve("flink"), FLINK_HEAP_BYTES, f.pairs(), progress, List.of("flink",
                    Long.toString(f.rows()), Long.toString(f.cancelAfterRows()), Integer.toString(f.pairs()),
                    Long.toString(f.managedMemoryBytes()), Integer.toString(f.buckets())));
            CancelReport.flink(report, result, f);
        }
        if (engines.contains(Engine.SPARK)) {
            SparkCancel.Settings s = sizes.spark();
            progress.accept(String.format("spark: %d pairs of jobs (plain Paimon, the governed writer) cancelled after %,d of %,d rows,"
                    + " in a child JVM ...", s.pairs(), s.cancelAfterRows(), s.rows()));
            CancelSample.Result result = child(workDir.resolve("spark"), SPARK_HEAP_BYTES, s.pairs(), progress, List.of("spark",
                    Long.toString(s.rows()), Long.toString(s.cancelAfterRows()), Integer.toString(s.pairs()),
                    Long.toString(s.memoryBytes()), Integer.toString(s.buckets()), Integer.toString(s.partitions())));
            CancelReport.spark(report, result, s);
        }
        return report;
    }

    /**
     * Runs one engine's child: {@code settings} is the engine and its sizes, the work directory and
     * result file go in after the engine's name. Spark's own module flags
     * ({@code JavaModuleOptions.defaultModuleOptionArray()}) for both engines.
     */
    private static CancelSample.Result child(Path dir, long heapBytes, int pairs, Consumer<String> progress, List<String> settings)
            throws Exception {
        Files.createDirectories(dir);
        Path resultFile = dir.resolve("result.properties");
        List<String> args = new ArrayList<>();
        args.add(settings.get(0));
        args.add(dir.resolve("work").toString());
        args.add(resultFile.toString());
        args.addAll(settings.subList(1, settings.size()));
        List<String> jvm = new ArrayList<>(List.of("-Xmx" + heapBytes, "-Xms" + heapBytes));
        jvm.addAll(Arrays.asList(JavaModuleOptions.defaultModuleOptionArray()));
        long timeoutSeconds = 300 + 90L * pairs;
        ChildJvm.Ended ended = ChildJvm.run(dir, jvm, timeoutSeconds, CancelChild.class, args);
        ended.output().lines().filter(l -> l.startsWith(settings.get(0) + " ")).forEach(progress);
        if (ended.timedOut() || ended.exitCode() != 0 || !Files.exists(resultFile)) {
            String failed = ended.output().lines().filter(l -> l.startsWith(CancelChild.FAILED + " ")).findFirst().orElse(null);
            throw new IllegalStateException("the " + settings.get(0) + " child " + (ended.timedOut() ? "timed out after " + timeoutSeconds + " s"
                    : "exited with code " + ended.exitCode()) + ": " + (failed != null ? failed : ended.tail(5)));
        }
        return CancelChild.read(resultFile);
    }
}
