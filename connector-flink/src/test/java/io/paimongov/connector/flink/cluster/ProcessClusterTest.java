package io.paimongov.connector.flink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Governed writes on a Flink session cluster of separate JVMs ({@link ProcessCluster}): a
 * JobManager and two TaskManagers of one slot and 64 MiB managed memory each. A governed SQL
 * {@code INSERT} through the {@code paimon-governed} catalog and a governed DataStream job are
 * submitted over REST; each table equals the model of its input; every TaskManager's managed memory
 * as the cluster's REST metrics report it stays within its total, and the governed writer's pages
 * show in them; the TaskManager running the DataStream job's writer is killed with SIGKILL after a
 * completed checkpoint, the job recovers from its checkpoint on the other TaskManager and finishes
 * with every row exactly once, and a TaskManager started again on the dead one's directories leaves
 * nothing of the dead process's spill scopes once a governed write opened on it.
 *
 * <p>Sizes: {@code -Dgovernance.cluster.rows} (default 40,000) rows per job; the DataStream job
 * lets a quarter of them through per completed checkpoint.
 */
class ProcessClusterTest {

    private static final long ROWS = Long.getLong("governance.cluster.rows", 40_000);
    private static final int VALUE_BYTES = 200;
    private static final Duration JOB_PATIENCE = Duration.ofSeconds(150);

    @TempDir static Path dir;

    private static ProcessCluster cluster;
    private static ManagedMemoryWatch memory;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ProcessCluster.start(dir.resolve("cluster"), "a", "b");
        memory = new ManagedMemoryWatch(cluster.rest());
    }

    @BeforeEach
    void wholeCluster() throws Exception {
        cluster.reset();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        try {
            if (memory != null) {
                memory.close();
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aGovernedSqlInsertOnTwoTaskManagersWritesTheModelsRows() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "sql_orders", 2, "parquet");
        StreamExecutionEnvironment env = ClusterJobs.environment(cluster, 2, 500, 2);
        StreamTableEnvironment sql = StreamTableEnvironment.create(env);
        sql.executeSql("CREATE CATALOG g WITH ('type' = 'paimon-governed', 'warehouse' = '" + dir.resolve("wh").toUri() + "')");
        sql.executeSql("CREATE TEMPORARY TABLE indices (i BIGINT) WITH ('connector' = 'datagen', 'fields.i.kind' = 'sequence', "
                + "'fields.i.start' = '0', 'fields.i.end' = '" + (ROWS - 1) + "')");

        TableResult insert = sql.executeSql("INSERT INTO g.db.sql_orders SELECT CAST(MOD(i, 2) AS INT), CAST(i AS INT), "
                + "CONCAT('v', CAST(i AS STRING)) FROM indices");
        JobID job = insert.getJobClient().orElseThrow().getJobID();
        awaitFinished(job);

        List<String> model = new ArrayList<>();
        for (long i = 0; i < ROWS; i++) {
            model.add(i % 2 + "/" + i + "/v" + i);
        }
        ClusterJobs.assertSameRows("the SQL table against the model of its input", ClusterJobs.rows(table), model);
        JsonNode vertices = cluster.rest().get("/jobs/" + job).path("vertices");
        assertThat(vertices.toString()).as("the job's vertices").contains("paimon-gov writer");
        assertThat(taskManagersOf(job, writerVertex(job))).as("the task managers of the writers").hasSize(2);
        assertWithinManagedMemory();
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aDataStreamJobRecoversExactlyOnceWhenTheTaskManagerOfItsWriterIsKilled() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "events",
                Map.of("bucket", "-1", "file.format", "parquet", "write-buffer-spillable", "true"), false);
        int perCheckpoint = (int) (ROWS / 4);
        long holdAt = perCheckpoint + perCheckpoint * 3L / 4;
        Path held = dir.resolve("held");
        Path release = dir.resolve("release");
        StreamExecutionEnvironment env = ClusterJobs.environment(cluster, 1, 300, 6);
        ClusterJobs.heldJob(env, table, ROWS, perCheckpoint, holdAt, held, release, VALUE_BYTES,
                Map.of("governance.memory.budget", "2m"));
        JobClient client = env.executeAsync("governed DataStream job, held");
        JobID job = client.getJobID();

        await("the job to be held at index " + holdAt, () -> Files.exists(held), () -> "no file " + held);
        JsonNode checkpoints = cluster.rest().await("a completed checkpoint", "/jobs/" + job + "/checkpoints", JOB_PATIENCE,
                r -> r.path("counts").path("completed").asInt() >= 1);
        long lastCompleted = checkpoints.path("latest").path("completed").path("id").asLong();
        String writerTm = single(taskManagersOf(job, writerVertex(job)));
        String victim = ProcessCluster.nameOf(writerTm);
        await("Managed.Used > 0 on " + writerTm + " (the held writer's pages), from REST", () -> memory.maxUsed(writerTm) > 0,
                () -> "the largest Managed.Used read from it: " + memory.maxUsed(writerTm) + " (-1: none read)");
        List<Path> deadScopes = scopes(cluster.tmpDir(victim));
        assertThat(deadScopes).as("the held writer's spill scopes under %s", cluster.tmpDir(victim)).isNotEmpty();
        long deadPid = cluster.taskManager(victim).pid();

        long killedAt = System.nanoTime();
        cluster.kill(victim);
        Files.createFile(release);
        JsonNode restored = cluster.rest().await("the job restored from a checkpoint", "/jobs/" + job + "/checkpoints",
                JOB_PATIENCE, r -> r.path("counts").path("restored").asInt() >= 1);
        JsonNode finished = awaitFinished(job);
        System.err.printf("cluster test: killed %s (pid %d) holding checkpoint %d; restored %s %.1f s after the kill; "
                        + "job finished; max Managed.Used on it %d of %d%n",
                writerTm, deadPid, lastCompleted, restored.path("latest").path("restored"), (System.nanoTime() - killedAt) / 1e9,
                memory.maxUsed(writerTm), memory.maxTotal());

        assertThat(restored.path("latest").path("restored").path("id").asLong()).as("the restored checkpoint")
                .isGreaterThanOrEqualTo(lastCompleted);
        assertThat(finished.path("state").asText()).isEqualTo("FINISHED");
        assertThat(single(taskManagersOf(job, writerVertex(job)))).as("the writer after the restore").isNotEqualTo(writerTm);
        ClusterJobs.assertSameRows("every row of the input exactly once", ClusterJobs.rows(table), ClusterJobs.modelRows(ROWS, VALUE_BYTES));
        assertWithinManagedMemory();
        String survivor = victim.equals("a") ? "b" : "a";
        assertThat(scopes(cluster.tmpDir(survivor))).as("spill scopes on %s after the job finished", survivor).isEmpty();

        cluster.startTaskManager(victim);
        cluster.awaitTaskManagers();
        writeOnBothTaskManagers();
        assertThat(deadScopes).as("the dead task manager's spill scopes after a governed write opened on its successor")
                .noneMatch(Files::exists);
        assertThat(scopes(cluster.tmpDir(victim))).as("spill scopes of pid %s under %s", deadPid, cluster.tmpDir(victim))
                .noneMatch(p -> p.getFileName().toString().startsWith("paimon-gov-" + deadPid + "-"));
        System.err.println("cluster test: left in " + cluster.tmpDir(victim) + " after the successor's write: " + listing(cluster.tmpDir(victim)));
    }

    /** The entries of {@code dir} and, one level down, of its directories: what Flink itself keeps there. */
    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir, 2)) {
            return walk.filter(p -> !p.equals(dir)).map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    /** A governed DataStream job of parallelism 2, so that a writer opens on each TaskManager. */
    private static void writeOnBothTaskManagers() throws Exception {
        FileStoreTable table = TestTables.createTable(dir.resolve("wh"), "after_restart", Map.of("bucket", "-1", "file.format", "parquet"), false);
        StreamExecutionEnvironment env = ClusterJobs.environment(cluster, 2, 300, 0);
        ClusterJobs.heldJob(env, table, 1_000, 1_000, -1, dir.resolve("unused-held"), dir.resolve("unused-release"), 10, Map.of());
        JobID job = env.executeAsync("governed DataStream job on both task managers").getJobID();
        awaitFinished(job);
        assertThat(taskManagersOf(job, writerVertex(job))).as("the task managers of the writers").hasSize(2);
        ClusterJobs.assertSameRows("the rows written on both task managers", ClusterJobs.rows(table), ClusterJobs.modelRows(1_000, 10));
    }

    private static void assertWithinManagedMemory() {
        assertThat(memory.sampleCount()).as("managed-memory samples read from REST").isPositive();
        assertThat(memory.overTotal()).as("samples with Managed.Used above Managed.Total").isEmpty();
    }

    private static JsonNode awaitFinished(JobID job) throws InterruptedException {
        JsonNode status = cluster.rest().await("job " + job + " to finish", "/jobs/" + job, JOB_PATIENCE, r -> {
            String state = r.path("state").asText();
            if (state.equals("FAILED") || state.equals("CANCELED")) {
                throw new AssertionError("job " + job + " ended " + state + ": " + r);
            }
            return state.equals("FINISHED");
        });
        return status;
    }

    private static String writerVertex(JobID job) throws Exception {
        for (JsonNode vertex : cluster.rest().get("/jobs/" + job).path("vertices")) {
            if (vertex.path("name").asText().contains("paimon-gov writer")) {
                return vertex.path("id").asText();
            }
        }
        throw new AssertionError("no paimon-gov writer among the vertices of " + job);
    }

    /** The REST ids of the TaskManagers that ran the vertex's subtasks (of the latest attempts). */
    private static List<String> taskManagersOf(JobID job, String vertex) throws Exception {
        JsonNode r = cluster.rest().get("/jobs/" + job + "/vertices/" + vertex + "/taskmanagers");
        return r.path("taskmanagers").findValuesAsText("taskmanager-id").stream().distinct().sorted().toList();
    }

    private static String single(List<String> taskManagers) {
        assertThat(taskManagers).as("task managers").hasSize(1);
        return taskManagers.get(0);
    }

    /** Governed spill scopes ({@code paimon-gov-*} directories) anywhere under {@code root}. */
    private static List<Path> scopes(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith("paimon-gov-")).toList();
        }
    }

    /** Polls {@code condition}; fails after {@link #JOB_PATIENCE} naming {@code what} and the {@code last} state. */
    private static void await(String what, Callable<Boolean> condition, Supplier<String> last) throws Exception {
        long deadline = System.nanoTime() + JOB_PATIENCE.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + JOB_PATIENCE.toSeconds() + " s waiting for " + what + "; " + last.get());
            }
            Thread.sleep(50);
        }
    }
}
