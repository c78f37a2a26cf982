package io.paimongov.connector.spark.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.connector.spark.SparkLines;
import io.paimongov.fixtures.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark session on {@code local-cluster[n,1,mb]}: a standalone Master and {@code n} Workers in
 * this JVM, each Worker running one executor as its own JVM ({@code CoarseGrainedExecutorBackend}, a
 * child process of this one), with one core each; the UI on, for Spark's REST API.
 *
 * <p>Spark launches those executors only when the JVM has {@code -Dspark.testing=true} and {@code
 * -Dspark.test.home=<dir>}: Spark's launcher then takes this JVM's {@code java.class.path} for the
 * executors and finds its "build" under that directory, which {@link #start} lays out ({@code jars/},
 * empty, and {@code launcher/target/scala-2.13/}). {@code spark.testing} changes other Spark behaviour
 * too, so only the surefire execution {@code local-cluster} of connector-spark's pom sets it (with
 * {@code SPARK_LOCAL_IP=127.0.0.1}, which keeps the Workers on loopback), and no other test shares
 * that JVM. {@link #available()} says whether this JVM is that one.
 *
 * <p>Every task end is recorded ({@link #taskEnds()}) from {@code SparkListenerTaskEnd}, Spark's
 * own events. {@link #close()} stops the session and makes sure every executor process is gone.
 *
 * <p>Test-only; one instance per test class; not thread-safe except {@link #taskEnds()}.
 */
public final class LocalCluster implements AutoCloseable {

    /** What {@link #available()} needs, for a skip message. */
    public static final String NEEDS = "-Dspark.testing=true and -Dspark.test.home (the surefire execution"
            + " 'local-cluster' of connector-spark's pom)";

    private static final String EXECUTOR_MAIN = "org.apache.spark.executor.CoarseGrainedExecutorBackend";
    private static final Duration EXECUTOR_WAIT = Duration.ofSeconds(180);
    private static final Duration EXIT_WAIT = Duration.ofSeconds(60);

    private final SparkSession session;
    private final TaskEnds taskEnds = new TaskEnds();
    /** Every executor process seen, by pid, so that {@link #close()} also waits for replaced ones. */
    private final Map<Long, ProcessHandle> seen = new LinkedHashMap<>();

    private LocalCluster(SparkSession session) {
        this.session = session;
    }

    /** Whether this JVM was started with {@link #NEEDS}. */
    public static boolean available() {
        return "true".equals(System.getProperty("spark.testing")) && System.getProperty("spark.test.home") != null;
    }

    /**
     * Starts {@code executors} Workers of one core and {@code executorMb} MiB each, their executors
     * with {@code executorMb} MiB of heap, Spark's local dirs under {@code localDir}, heartbeats and
     * executor metric polls every second, and waits until every executor has registered.
     *
     * @throws IllegalStateException if this JVM lacks {@link #NEEDS}, or the executors do not register
     *     within 180 s
     */
    public static LocalCluster start(int executors, int executorMb, Path localDir) throws IOException {
        if (!available()) {
            throw new IllegalStateException("a local-cluster session needs " + NEEDS);
        }
        Path home = Path.of(System.getProperty("spark.test.home")).toAbsolutePath();
        Files.createDirectories(home.resolve("jars"));
        Files.createDirectories(home.resolve("launcher/target/scala-2.13"));
        SparkSession session = SparkSession.builder()
                .master("local-cluster[" + executors + ",1," + executorMb + "]")
                .appName("paimon-governance-connector-spark-cluster-test")
                .config("spark.executor.memory", executorMb + "m")
                .config("spark.local.dir", localDir.toAbsolutePath().toString())
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.ui.enabled", "true")
                .config("spark.ui.port", "0")
                .config("spark.executor.heartbeatInterval", "1s")
                .config("spark.executor.metrics.pollingInterval", "1s")
                .config("spark.sql.shuffle.partitions", Integer.toString(executors))
                .config("spark.unsafe.exceptionOnMemoryLeak", "true")
                .getOrCreate();
        LocalCluster cluster = new LocalCluster(session);
        session.sparkContext().addSparkListener(cluster.taskEnds);
        try {
            cluster.awaitExecutors(executors);
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** The session. */
    public SparkSession session() {
        return session;
    }

    /** The task ends Spark's listener bus delivered so far, in order. */
    public List<TaskEnd> taskEnds() {
        return taskEnds.list();
    }

    /** Waits until the listener bus has delivered every event posted so far. */
    public void awaitListeners() {
        try {
            session.sparkContext().listenerBus().waitUntilEmpty(30_000);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("Spark's listener bus did not drain in 30 s", e);
        }
    }

    /**
     * Spark's REST API of this application: {@code GET /api/v1/applications/<app>/<path>}, parsed.
     *
     * @throws UncheckedIOException if the request fails or the answer is not JSON
     */
    private JsonNode rest(String path) {
        SparkContext context = session.sparkContext();
        String ui = context.uiWebUrl().getOrElse(() -> {
            throw new IllegalStateException("the Spark UI is off; the REST API needs it");
        });
        URI uri = URI.create(ui + "/api/v1/applications/" + context.applicationId() + "/" + path);
        try (InputStream in = uri.toURL().openStream()) {
            return Json.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + uri + " failed", e);
        }
    }

    /** The executors (not the driver) that are active now, as {@code /executors} lists them. */
    private List<JsonNode> activeExecutors() {
        List<JsonNode> active = new ArrayList<>();
        for (JsonNode executor : rest("executors")) {
            if (!"driver".equals(executor.path("id").asText()) && executor.path("isActive").asBoolean()) {
                active.add(executor);
            }
        }
        return active;
    }

    /** Executor {@code id} as {@code /allexecutors} lists it (dead ones included). */
    public JsonNode executor(String id) {
        for (JsonNode executor : rest("allexecutors")) {
            if (id.equals(executor.path("id").asText())) {
                return executor;
            }
        }
        throw new IllegalStateException("Spark's /allexecutors lists no executor " + id);
    }

    /** The executor processes of this JVM alive now ({@code CoarseGrainedExecutorBackend} descendants). */
    public synchronized List<ProcessHandle> executorProcesses() {
        List<ProcessHandle> processes = ProcessHandle.current().descendants().filter(LocalCluster::isExecutor).toList();
        processes.forEach(p -> seen.putIfAbsent(p.pid(), p));
        return processes;
    }

    /**
     * Kills executor process {@code pid} with {@code SIGKILL} and waits until it is gone.
     *
     * @throws IllegalArgumentException if {@code pid} is not an executor process of this JVM
     */
    public void kill(long pid) {
        ProcessHandle process = executorProcesses().stream().filter(p -> p.pid() == pid).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("pid " + pid + " is no executor process of this JVM"));
        process.destroyForcibly();
        try {
            process.onExit().get(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("executor process " + pid + " did not end within " + EXIT_WAIT, e);
        }
    }

    /** Waits until {@code count} executors are active. */
    public void awaitExecutors(int count) {
        await("%d active executors".formatted(count), EXECUTOR_WAIT, () -> activeExecutors().size() >= count);
        executorProcesses();
    }

    /**
     * Stops the session, then waits until every executor process this JVM started is gone; those
     * still alive 60 s after the stop are killed and reported.
     *
     * @throws IllegalStateException if an executor process had to be killed
     */
    @Override
    public void close() {
        try {
            executorProcesses();
            session.stop();
        } finally {
            SparkSession.clearActiveSession();
            SparkSession.clearDefaultSession();
            List<Long> killed = new ArrayList<>();
            List<ProcessHandle> all;
            synchronized (this) {
                all = new ArrayList<>(seen.values());
            }
            all.addAll(ProcessHandle.current().descendants().filter(LocalCluster::isExecutor).toList());
            long deadline = System.nanoTime() + EXIT_WAIT.toNanos();
            for (ProcessHandle process : all) {
                try {
                    process.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (Exception e) {
                    process.destroyForcibly();
                    process.onExit().join();
                    killed.add(process.pid());
                }
            }
            if (!killed.isEmpty()) {
                throw new IllegalStateException("executor processes " + killed + " outlived the session by "
                        + EXIT_WAIT + " and were killed");
            }
        }
    }

    /**
     * Whether {@code process} runs Spark's executor main class. {@code ProcessHandle.Info.arguments()}
     * is empty for a command line as long as an executor's (its class path), so Linux's {@code
     * /proc/<pid>/cmdline} is read first.
     */
    private static boolean isExecutor(ProcessHandle process) {
        Path cmdline = Path.of("/proc", Long.toString(process.pid()), "cmdline");
        try {
            return List.of(new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).split("\0"))
                    .contains(EXECUTOR_MAIN);
        } catch (IOException e) {
            return process.info().arguments().map(a -> List.of(a).contains(EXECUTOR_MAIN)).orElse(false);
        }
    }

    /**
     * Polls {@code condition} every 100 ms until it holds.
     *
     * @throws IllegalStateException naming {@code what} if it does not hold within {@code limit}
     */
    public static void await(String what, Duration limit, Supplier<Boolean> condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.get()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("waited " + limit + " for " + what + " in vain");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    /** One task attempt that ended, from {@code SparkListenerTaskEnd}. */
    public record TaskEnd(int stage, int index, int attempt, String executorId, boolean successful, String reason,
            String taskType, long peakOnHeapExecutionMemory) {}

    private static final class TaskEnds extends SparkListener {
        private final List<TaskEnd> ends = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            long peak = end.taskMetrics() == null ? 0 : SparkLines.peakOnHeapExecutionMemory(end.taskMetrics()).orElse(-1);
            ends.add(new TaskEnd(end.stageId(), end.taskInfo().index(), end.taskInfo().attemptNumber(),
                    end.taskInfo().executorId(), end.taskInfo().successful(), String.valueOf(end.reason()),
                    end.taskType(), peak));
        }

        List<TaskEnd> list() {
            synchronized (ends) {
                return List.copyOf(ends);
            }
        }
    }
}
