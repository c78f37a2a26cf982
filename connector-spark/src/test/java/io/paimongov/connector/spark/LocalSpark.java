package io.paimongov.connector.spark;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.spark.SparkEnv;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark of this module's tests: one local session per JVM at a time (test classes run one after
 * the other in one JVM and share it), on 127.0.0.1, no UI, 600 MB of memory, 2 shuffle partitions,
 * and {@code spark.unsafe.exceptionOnMemoryLeak=true}, so a task that leaks execution memory fails.
 * A class that needs another master (a number of task attempts) gets a new session; the old one
 * is stopped.
 *
 * <p>The task metrics of every task that ends are summed ({@link #metrics()}), taken from {@code
 * SparkListenerTaskEnd}, Spark's own counters.
 *
 * <p>Test-only; the methods are synchronized.
 */
public final class LocalSpark {

    /** Two task threads; a failed task fails its job. */
    public static final String LOCAL_2 = "local[2]";
    /** Two task threads; a task may fail once and run again. */
    public static final String LOCAL_2_RETRY = "local[2,2]";
    /**
     * Two task threads, a task may fail three times; for a class that throws Spark's fetch failures,
     * which in local mode remove the driver's block manager from the master: no other class shares
     * the session, so the next class starts a fresh one.
     */
    public static final String LOCAL_2_FETCH_FAILURES = "local[2,4]";

    private static SparkSession session;
    private static String master;
    private static final Metrics METRICS = new Metrics();

    private LocalSpark() {}

    /** The shared session on {@code master}, made on first use. */
    public static synchronized SparkSession session(String wanted) {
        if (session != null && wanted.equals(master) && !session.sparkContext().isStopped()) {
            return session;
        }
        if (session != null) {
            session.stop();
        }
        session = SparkSession.builder()
                .master(wanted)
                .appName("paimon-governance-connector-spark-test")
                .config("spark.testing.memory", Long.toString(600L << 20))
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.unsafe.exceptionOnMemoryLeak", "true")
                .getOrCreate();
        master = wanted;
        session.sparkContext().addSparkListener(METRICS);
        return session;
    }

    /** The task metrics summed since the last {@link Metrics#reset()}. */
    public static Metrics metrics() {
        return METRICS;
    }

    /** Waits until the listener bus has delivered every event posted so far (task ends included). */
    public static synchronized void awaitListeners() {
        try {
            session.sparkContext().listenerBus().waitUntilEmpty(30_000);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("Spark's listener bus did not drain in 30 s", e);
        }
    }

    /** The spill scopes ({@code paimon-gov-*}) in Spark's local dirs now. */
    public static List<Path> spillScopesInSparkLocalDirs() {
        List<Path> scopes = new ArrayList<>();
        for (File local : SparkEnv.get().blockManager().diskBlockManager().localDirs()) {
            try (Stream<Path> children = Files.list(local.toPath())) {
                children.filter(p -> p.getFileName().toString().startsWith("paimon-gov-")).forEach(scopes::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return scopes;
    }

    /** Sums of Spark's task metrics over the tasks that ended. */
    public static final class Metrics extends SparkListener {
        private final AtomicLong memoryBytesSpilled = new AtomicLong();
        private final AtomicLong diskBytesSpilled = new AtomicLong();
        private final AtomicLong peakExecutionMemory = new AtomicLong();
        private final AtomicLong peakOnHeapExecutionMemory = new AtomicLong();
        private final AtomicLong resultTasksWithMemory = new AtomicLong();

        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            if (end.taskMetrics() != null) {
                memoryBytesSpilled.addAndGet(end.taskMetrics().memoryBytesSpilled());
                diskBytesSpilled.addAndGet(end.taskMetrics().diskBytesSpilled());
                peakExecutionMemory.accumulateAndGet(end.taskMetrics().peakExecutionMemory(), Math::max);
                long peakOnHeap = SparkLines.peakOnHeapExecutionMemory(end.taskMetrics()).orElse(0);
                peakOnHeapExecutionMemory.accumulateAndGet(peakOnHeap, Math::max);
                // Spark 3.5 keeps no peak of its memory manager: there, the peak a governed write
                // reported into peakExecutionMemory (SparkTaskMetricsReporter) says it took memory.
                long took = SparkLines.PEAK_ON_HEAP ? peakOnHeap : end.taskMetrics().peakExecutionMemory();
                if ("ResultTask".equals(end.taskType()) && took > 0) {
                    resultTasksWithMemory.incrementAndGet();
                }
            }
        }

        public void reset() {
            memoryBytesSpilled.set(0);
            diskBytesSpilled.set(0);
            peakExecutionMemory.set(0);
            peakOnHeapExecutionMemory.set(0);
            resultTasksWithMemory.set(0);
        }

        /**
         * Result tasks whose memory manager saw execution memory taken ({@code
         * peakOnHeapExecutionMemory}): after a write whose last stage only writes (no sort, no
         * aggregation), the tasks that opened a governed write, which takes its first pages from
         * Spark before its first row.
         */
        public long resultTasksWithMemory() {
            return resultTasksWithMemory.get();
        }

        /** {@code memoryBytesSpilled}, summed. */
        public long memoryBytesSpilled() {
            return memoryBytesSpilled.get();
        }

        /** {@code diskBytesSpilled}, summed. */
        public long diskBytesSpilled() {
            return diskBytesSpilled.get();
        }

        /** The largest {@code peakExecutionMemory} of a task: what operators (and governed writes) reported. */
        public long peakExecutionMemory() {
            return peakExecutionMemory.get();
        }

        /** The largest {@code peakOnHeapExecutionMemory} of a task: what its memory manager saw taken. */
        public long peakOnHeapExecutionMemory() {
            return peakOnHeapExecutionMemory.get();
        }
    }
}
