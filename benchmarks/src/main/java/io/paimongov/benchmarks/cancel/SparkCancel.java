package io.paimongov.benchmarks.cancel;

import io.paimongov.benchmarks.BenchTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * How long cancelling a Spark job that writes a Paimon table takes, plain Paimon in the shape of
 * Paimon's own Spark writer beside the governed writer ({@link SparkSide}), in one local Spark
 * ({@code local[partitions]}).
 *
 * <p>A job has {@code partitions} tasks; task {@code p} writes its share of {@code rows} indices as
 * rows ({@link CancelRows}) into a fresh primary-key table of {@code buckets} buckets, through a
 * Spark {@code InterruptibleIterator} as a Spark source hands rows out ({@link TaskProbe}). Once
 * the tasks handed out {@code cancelAfterRows} rows, the harness calls {@code cancelJobGroup} (the
 * job group set with {@code interruptOnCancel} true, as Spark SQL sets it: a kill marks the task and
 * interrupts its thread). The times are Spark's own ({@link SparkJobWatch}): from the cancel call
 * (the driver's {@code System.currentTimeMillis()}, read just before it) to the job's end event and
 * to the last of its tasks' end events. After each job: whether it left a snapshot, spill scopes
 * under Spark's local directory, data files, and whether the tasks' execution memory was all back
 * after their completion listeners ran.
 *
 * <p>One untimed pair warms up; then {@code pairs} pairs alternate which side goes first. Not
 * thread-safe; one run per JVM at a time (one Spark context).
 */
public final class SparkCancel {

    private static final Duration JOB_PATIENCE = Duration.ofMinutes(10);
    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    /**
     * The sizes, fixed before a run.
     *
     * @param rows rows of the job, split evenly over the partitions
     * @param cancelAfterRows rows handed to the writes before the cancel
     * @param pairs timed (paimon, governed) pairs
     * @param partitions the job's tasks, and Spark's local threads
     * @param memoryBytes each write's memory: the governed budget (Spark task memory), and plain
     *     Paimon's {@code write-buffer-size} (its own heap pool)
     * @param buckets the table's fixed buckets
     */
    public record Settings(long rows, long cancelAfterRows, int pairs, int partitions, long memoryBytes, int buckets) {

        public Settings {
            if (rows < 1 || cancelAfterRows < 1 || cancelAfterRows >= rows || pairs < 1 || partitions < 1
                    || memoryBytes < (1 << 20) || buckets < 1) {
                throw new IllegalArgumentException("bad Spark cancel settings: " + rows + " rows, cancel after " + cancelAfterRows
                        + ", " + pairs + " pairs, " + partitions + " partitions, " + memoryBytes + " bytes, " + buckets + " buckets");
            }
        }
    }

    private SparkCancel() {}

    /** Runs the pairs under {@code workDir} (the caller removes it); {@code progress} gets a line per pair. */
    public static CancelSample.Result run(Path workDir, Settings s, Consumer<String> progress) throws Exception {
        Path local = Files.createDirectories(workDir.resolve("spark-local"));
        SparkConf conf = new SparkConf()
                .setMaster("local[" + s.partitions() + "]")
                .setAppName("paimon-governance-bench-cancel")
                .set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.ui.enabled", "false")
                .set("spark.local.dir", local.toString())
                .set("spark.unsafe.exceptionOnMemoryLeak", "true");
        JavaSparkContext spark = new JavaSparkContext(conf);
        try {
            SparkJobWatch watch = new SparkJobWatch();
            spark.sc().addSparkListener(watch);
            List<CancelSample> paimon = new ArrayList<>();
            List<CancelSample> governed = new ArrayList<>();
            for (int i = -1; i < s.pairs(); i++) {
                boolean paimonFirst = i % 2 == 0;
                SparkSide first = paimonFirst ? SparkSide.PAIMON : SparkSide.GOVERNED;
                SparkSide second = paimonFirst ? SparkSide.GOVERNED : SparkSide.PAIMON;
                CancelSample a = sample(spark, watch, local, workDir.resolve(first.key() + "-" + i), first, i, s);
                CancelSample b = sample(spark, watch, local, workDir.resolve(second.key() + "-" + i), second, i, s);
                String what = i < 0 ? "warm-up" : "pair " + (i + 1) + "/" + s.pairs();
                progress.accept(String.format("spark %s: %s %d ms (job end %d ms), %s %d ms (job end %d ms)",
                        what, first.key(), a.tasksMillis(), a.jobMillis(), second.key(), b.tasksMillis(), b.jobMillis()));
                if (i >= 0) {
                    (paimonFirst ? paimon : governed).add(a);
                    (paimonFirst ? governed : paimon).add(b);
                }
            }
            return new CancelSample.Result("spark", paimon, governed);
        } finally {
            spark.stop();
        }
    }

    /** One job: start it, cancel after the rows, wait for Spark's end events, look at what it left. */
    private static CancelSample sample(JavaSparkContext spark, SparkJobWatch watch, Path local, Path dir, SparkSide side, int pair, Settings s)
            throws Exception {
        FileStoreTable table = BenchTables.create(dir.resolve("warehouse"),
                CancelTables.shape(s.buckets()).with("write-buffer-size", Long.toString(s.memoryBytes())));
        String group = "cancel-" + side.key() + "-" + pair;
        watch.expect(group);
        TaskProbe.start(group);
        AtomicReference<Throwable> ended = new AtomicReference<>();
        Thread job = new Thread(() -> {
            spark.setJobGroup(group, "a " + side.key() + " write to cancel", true);
            try {
                submit(spark, side, table.location().toString(), group, s);
                ended.set(new IllegalStateException("the " + side.key() + " job finished before it was cancelled"));
            } catch (Throwable t) {
                ended.set(t);
            }
        }, "bench-cancel-" + group);
        job.start();
        try {
            awaitRows(group, s.cancelAfterRows(), job, ended);
            long rowsAtCancel = TaskProbe.rows(group);
            long cancelAt = System.currentTimeMillis();
            spark.cancelJobGroup(group);
            job.join(JOB_PATIENCE.toMillis());
            SparkJobWatch.Ended end = watch.awaitEnd(JOB_PATIENCE);
            if (!String.valueOf(ended.get()).contains("cancelled")) {
                throw new IllegalStateException("the " + side.key() + " job did not end cancelled", ended.get());
            }
            boolean memoryBack = TaskProbe.tasksDone(group) == end.tasks() && TaskProbe.heldAtEnd(group) == 0;
            Leftovers left = Leftovers.look(table, local, memoryBack);
            return new CancelSample(end.lastTaskEndMillis() - cancelAt, end.jobEndMillis() - cancelAt, end.tasks(), end.killed(), rowsAtCancel, left);
        } finally {
            TaskProbe.forget(group);
            BenchTables.deleteTree(dir);
        }
    }

    /** The job: one task per partition, each writing its rows through {@code side}; blocks until it ends. */
    private static void submit(JavaSparkContext spark, SparkSide side, String location, String group, Settings s) {
        long rows = s.rows();
        int parts = s.partitions();
        long memory = s.memoryBytes();
        spark.parallelize(IntStream.range(0, parts).boxed().toList(), parts)
                .mapPartitions(part -> {
                    int p = part.next();
                    Iterator<InternalRow> partRows = rows(rows, CancelRows.rangeStart(rows, parts, p), CancelRows.rangeStart(rows, parts, p + 1));
                    return List.of(side.writePartition(TaskProbe.watch(group, partRows), location, memory)).iterator();
                })
                .collect();
    }

    /** Rows {@code from} to {@code to} (exclusive) of {@link CancelRows}, keys over {@code rows} keys. */
    private static Iterator<InternalRow> rows(long rows, long from, long to) {
        int keys = (int) Math.min(Integer.MAX_VALUE, rows);
        return new Iterator<>() {
            long next = from;

            @Override
            public boolean hasNext() {
                return next < to;
            }

            @Override
            public InternalRow next() {
                long i = next++;
                return GenericRow.of(CancelRows.key(i, keys), BinaryString.fromBytes(CancelRows.value(i)));
            }
        };
    }

    private static void awaitRows(String group, long target, Thread job, AtomicReference<Throwable> ended) {
        long deadline = System.nanoTime() + JOB_PATIENCE.toNanos();
        while (TaskProbe.rows(group) < target) {
            if (!job.isAlive()) {
                throw new IllegalStateException("job group " + group + " ended after " + TaskProbe.rows(group) + " of " + target + " rows",
                        ended.get());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("job group " + group + " handed out " + TaskProbe.rows(group) + " of " + target
                        + " rows in " + JOB_PATIENCE);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
