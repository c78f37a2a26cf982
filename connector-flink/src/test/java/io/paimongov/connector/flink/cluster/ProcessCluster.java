package io.paimongov.connector.flink.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * A Flink standalone session cluster of separate JVMs, started from the test's own class path (no
 * Flink distribution): one JobManager ({@code StandaloneSessionClusterEntrypoint}) and TaskManagers
 * ({@code TaskManagerRunner}) of one slot each, on free local ports. Every child gets the whole test
 * class path (Flink, the table runtime, Paimon, this project's connector and the test classes, so
 * jobs built in the test need no jar shipped), its own log file under {@code <dir>/logs} (nothing on
 * the test's output), and a TaskManager its own {@code io.tmp.dirs}, {@code <dir>/tm-<name>/tmp},
 * which a TaskManager started later under the same name reuses.
 *
 * <p>TaskManager memory is resolved here as Flink's {@code taskmanager.sh} resolves it ({@code
 * BashJavaUtils GET_TM_RESOURCE_PARAMS}): {@code TaskExecutorProcessUtils} turns the configuration
 * into JVM flags and {@code -D} properties of fixed sizes, 64 MiB managed memory per TaskManager.
 * Heartbeats every second with a 5 s timeout, so a killed TaskManager is noticed in seconds; the
 * REST metrics are fetched every 500 ms.
 *
 * <p>{@link #close()} kills every child still alive ({@code destroyForcibly}) and waits for it, so
 * a test that closes the cluster in a {@code finally} (or try-with-resources) leaves no process
 * behind whatever failed; and each child halts by itself when the test JVM is gone ({@link
 * ChildMain}), for the case where no {@code finally} runs. Not thread-safe: the test thread starts, kills and closes.
 */
final class ProcessCluster implements AutoCloseable {

    /** Managed memory per TaskManager (one slot each). */
    static final String MANAGED = "64m";

    private static final Duration START_PATIENCE = Duration.ofSeconds(120);

    private final Path dir;
    private final Path confDir;
    private final int restPort;
    private final ClusterRest rest;
    private final Process jobManager;
    private final Map<String, Process> taskManagers = new LinkedHashMap<>();
    /** The resource id of the TaskManager last started under each name. */
    private final Map<String, String> resourceIds = new LinkedHashMap<>();
    private final List<Process> all = new ArrayList<>();

    private ProcessCluster(Path dir, Path confDir, int restPort, Process jobManager) {
        this.dir = dir;
        this.confDir = confDir;
        this.restPort = restPort;
        this.rest = new ClusterRest(restPort);
        this.jobManager = jobManager;
        all.add(jobManager);
    }

    /**
     * Writes the configuration under {@code dir}, starts the JobManager and the named TaskManagers
     * and waits until the REST API reports all of them. On any failure the processes started so far
     * are killed before the exception leaves.
     */
    static ProcessCluster start(Path dir, String... taskManagerNames) throws Exception {
        Path confDir = Files.createDirectories(dir.resolve("conf"));
        Files.createDirectories(dir.resolve("logs"));
        int rpcPort = freePort();
        int restPort = freePort();
        int blobPort = freePort();
        Files.writeString(confDir.resolve("config.yaml"), config(dir, rpcPort, restPort, blobPort));
        Process jm = launch(dir, "jobmanager", List.of("-Xmx256m"),
                "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint", List.of("--configDir", confDir.toString()));
        ProcessCluster cluster = new ProcessCluster(dir, confDir, restPort, jm);
        try {
            for (String name : taskManagerNames) {
                cluster.startTaskManager(name);
            }
            cluster.awaitTaskManagers();
            return cluster;
        } catch (Throwable t) {
            cluster.close();
            throw t;
        }
    }

    private static String config(Path dir, int rpcPort, int restPort, int blobPort) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("jobmanager.rpc.address", "127.0.0.1");
        c.put("jobmanager.rpc.port", Integer.toString(rpcPort));
        c.put("jobmanager.bind-host", "127.0.0.1");
        c.put("jobmanager.memory.process.size", "600m");
        c.put("taskmanager.bind-host", "127.0.0.1");
        c.put("taskmanager.host", "127.0.0.1");
        c.put("taskmanager.numberOfTaskSlots", "1");
        c.put("taskmanager.memory.task.heap.size", "160m");
        c.put("taskmanager.memory.managed.size", MANAGED);
        c.put("taskmanager.memory.framework.heap.size", "64m");
        c.put("taskmanager.memory.framework.off-heap.size", "32m");
        c.put("taskmanager.memory.network.min", "32m");
        c.put("taskmanager.memory.network.max", "32m");
        c.put("taskmanager.memory.jvm-metaspace.size", "160m");
        c.put("taskmanager.memory.jvm-overhead.min", "64m");
        c.put("taskmanager.memory.jvm-overhead.max", "64m");
        c.put("rest.address", "127.0.0.1");
        c.put("rest.bind-address", "127.0.0.1");
        c.put("rest.port", Integer.toString(restPort));
        c.put("blob.server.port", Integer.toString(blobPort));
        c.put("high-availability.type", "NONE");
        c.put("heartbeat.interval", "1000");
        c.put("heartbeat.timeout", "5000");
        c.put("metrics.fetcher.update-interval", "500");
        c.put("web.checkpoints.history", "1000");
        c.put("execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString());
        return c.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue() + "\n").collect(Collectors.joining());
    }

    /**
     * Starts a TaskManager with resource id {@code name-<n>} (a fresh id per start, as the
     * JobManager may still know the id of a killed one) and temp dirs {@code <dir>/tm-<name>/tmp}.
     * Does not wait for it to register.
     */
    void startTaskManager(String name) throws IOException {
        if (taskManagers.containsKey(name) && taskManagers.get(name).isAlive()) {
            throw new IllegalStateException("task manager " + name + " is running");
        }
        Configuration conf = GlobalConfiguration.loadConfiguration(confDir.toString());
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(conf);
        List<String> jvm = new ArrayList<>(Arrays.asList(ProcessMemoryUtils.generateJvmParametersStr(spec).split(" ")));
        List<String> args = new ArrayList<>(List.of("--configDir", confDir.toString()));
        args.addAll(Arrays.asList(TaskExecutorProcessUtils.generateDynamicConfigsStr(spec).trim().split(" ")));
        String resourceId = name + "-" + all.size();
        args.addAll(List.of("-D", "taskmanager.resource-id=" + resourceId, "-D", "io.tmp.dirs=" + tmpDir(name)));
        Files.createDirectories(tmpDir(name));
        Process tm = launch(dir, "taskmanager-" + resourceId, jvm, "org.apache.flink.runtime.taskexecutor.TaskManagerRunner", args);
        taskManagers.put(name, tm);
        resourceIds.put(name, resourceId);
        all.add(tm);
    }

    /**
     * Brings the cluster back to where a test starts, whatever an earlier test left: cancels every
     * job that has not ended (waiting until it has), starts again, under its name and on its
     * directories, every TaskManager whose process is gone, and waits until the REST API lists
     * exactly the live ones.
     */
    void reset() throws IOException, InterruptedException {
        for (JsonNode job : rest.get("/jobs").path("jobs")) {
            String status = job.path("status").asText();
            if (!List.of("FINISHED", "FAILED", "CANCELED").contains(status)) {
                String id = job.path("id").asText();
                rest.patch("/jobs/" + id + "?mode=cancel");
                rest.await("job " + id + " to end after its cancel", "/jobs/" + id, START_PATIENCE,
                        r -> List.of("FINISHED", "FAILED", "CANCELED").contains(r.path("state").asText()));
            }
        }
        for (String name : List.copyOf(taskManagers.keySet())) {
            if (!taskManagers.get(name).isAlive()) {
                startTaskManager(name);
            }
        }
        awaitTaskManagers();
    }

    /** The temp dirs ({@code io.tmp.dirs}) of the TaskManagers started under {@code name}. */
    Path tmpDir(String name) {
        return dir.resolve("tm-" + name).resolve("tmp");
    }

    /** The process of the TaskManager last started under {@code name}. */
    Process taskManager(String name) {
        return taskManagers.get(name);
    }

    /** The name under which the TaskManager with REST id {@code resourceId} was started. */
    static String nameOf(String resourceId) {
        return resourceId.substring(0, resourceId.lastIndexOf('-'));
    }

    /** Kills the TaskManager {@code name} with SIGKILL (no shutdown hook runs) and waits for it to be gone. */
    void kill(String name) throws InterruptedException {
        Process tm = taskManagers.get(name);
        tm.destroyForcibly();
        tm.waitFor();
    }

    /**
     * Waits until the REST API lists exactly the TaskManagers last started under each name (a killed
     * one gone, its successor registered); returns {@code /taskmanagers}.
     */
    JsonNode awaitTaskManagers() throws InterruptedException {
        List<String> expected = resourceIds.values().stream().sorted().toList();
        return rest.await("the task managers " + expected + " registered, and no other", "/taskmanagers", START_PATIENCE,
                r -> r.path("taskmanagers").findValuesAsText("id").stream().sorted().toList().equals(expected));
    }

    ClusterRest rest() {
        return rest;
    }

    int restPort() {
        return restPort;
    }

    /**
     * Kills every child process still alive and waits for each, then copies the children's logs to
     * {@code target/process-cluster-logs} (the cluster's directory is the test's temporary one, gone
     * after it; the logs say why a job failed). Idempotent.
     */
    @Override
    public void close() throws InterruptedException, IOException {
        for (Process p : all) {
            p.destroyForcibly();
        }
        for (Process p : all) {
            p.waitFor();
        }
        Path kept = Files.createDirectories(Path.of("target", "process-cluster-logs"));
        try (Stream<Path> logs = Files.list(dir.resolve("logs"))) {
            for (Path log : (Iterable<Path>) logs::iterator) {
                Files.copy(log, kept.resolve(log.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static Process launch(Path dir, String name, List<String> jvm, String mainClass, List<String> args) throws IOException {
        Path argFile = dir.resolve("logs").resolve(name + ".args");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("@" + argFile);
        List<String> fileArgs = new ArrayList<>(jvm);
        fileArgs.addAll(OPENS);
        fileArgs.add("-cp");
        fileArgs.add(classPath());
        fileArgs.add(ChildMain.class.getName());
        fileArgs.add(Long.toString(ProcessHandle.current().pid()));
        fileArgs.add(mainClass);
        fileArgs.addAll(args);
        Files.write(argFile, fileArgs.stream().map(ProcessCluster::quote).toList());
        Path log = dir.resolve("logs").resolve(name + ".log");
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** The test JVM's class path as absolute entries (surefire's manifest-only jar hides it from {@code java.class.path}). */
    private static String classPath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return Arrays.stream(cp.split(java.io.File.pathSeparator)).filter(e -> !e.isEmpty())
                .map(e -> Path.of(e).toAbsolutePath().toString()).collect(Collectors.joining(java.io.File.pathSeparator));
    }

    private static String quote(String arg) {
        return "\"" + arg.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** The module openings Flink's distribution gives its JVMs on Java 17 ({@code env.java.opts.all}). */
    private static final List<String> OPENS = List.of(
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
