package io.paimongov.connector.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.connector.spark.SparkLines;
import io.paimongov.connector.spark.cluster.LocalCluster;
import io.paimongov.connector.spark.cluster.LocalCluster.TaskEnd;
import io.paimongov.fixtures.TableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

/**
 * Governed {@code INSERT}s through the catalog on a Spark cluster whose executors are their own JVMs
 * ({@link LocalCluster}: 2 Workers of one core, 2 executors of 1 GiB), into append tables ({@code
 * 'bucket' = '-1'}: no shuffle, each of the 2 input partitions is written by the task that reads
 * it), with a budget of 1 MiB, far below the data:
 *
 * <ul>
 *   <li>the table holds exactly the rows of the input;
 *   <li>every write task's memory, as Spark's own metrics show it: the task's {@code
 *       peakOnHeapExecutionMemory} (from {@code SparkListenerTaskEnd}) above 0 and within the budget,
 *       and each executor's {@code peakMemoryMetrics.OnHeapExecutionMemory} (REST) within the
 *       executor's execution memory ({@code maxMemory}, REST), and above 0 while a governed write
 *       holds its pages there;
 *   <li>one executor killed with {@code SIGKILL} while its write task holds (after writing half its
 *       rows, until the test lets go): Spark loses that attempt ({@code ExecutorLostFailure}) and runs
 *       it again, the {@code INSERT} completes and the table is exact, no row missing or twice;
 *   <li>what the dead attempt leaves: a buffered write (the default for Parquet) had all its rows in
 *       pages and its spill scope, so no file of the table is unreferenced; the scope stays under the
 *       dead executor's Spark local dir while the application runs (no live write sweeps another
 *       executor's dirs), and on shared {@code governance.spill.dirs} the retried write's opening
 *       sweep removes it. An unbuffered write leaves its open data file, which the next write with
 *       {@code governance.orphans.older-than = 0s} removes.
 * </ul>
 *
 * <p>Runs only in the surefire execution {@code local-cluster} (tag {@code local-cluster}; elsewhere
 * skipped: {@link LocalCluster#NEEDS}). Sizes:
 * {@code governance.test.spark.cluster-rows} rows (default 40,000, a multiple of 4, at least 40,000)
 * of about 100 bytes.
 */
@Tag("local-cluster")
@EnabledIf(value = "io.paimongov.connector.spark.cluster.LocalCluster#available",
        disabledReason = "needs " + LocalCluster.NEEDS)
class ClusterInsertTest {

    private static final int ROWS = Integer.getInteger("governance.test.spark.cluster-rows", 40_000);
    private static final long BUDGET = 1L << 20;
    private static final int EXECUTORS = 2;
    private static final int EXECUTOR_MB = 1024;
    private static final Duration HOLD_WAIT = Duration.ofSeconds(180);

    @TempDir static Path dir;
    private static Path warehouse;
    private static Path localDir;
    private static LocalCluster cluster;
    private static SparkSession spark;

    @BeforeAll
    static void startCluster() throws IOException {
        if (ROWS < 40_000 || ROWS % 4 != 0) {
            throw new IllegalArgumentException("governance.test.spark.cluster-rows = " + ROWS + " must be a multiple of 4"
                    + " and at least 40000 (each write task spills before it is held at half its rows)");
        }
        warehouse = Files.createDirectories(dir.resolve("warehouse"));
        localDir = Files.createDirectories(dir.resolve("spark-local"));
        cluster = LocalCluster.start(EXECUTORS, EXECUTOR_MB, localDir);
        spark = cluster.session();
        Tables.register(spark, "c", warehouse, Map.of("governance.memory.budget", Long.toString(BUDGET),
                "governance.memory.page-size", "16k"));
        spark.sql("CREATE DATABASE IF NOT EXISTS c.db");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster == null) {
            return;
        }
        cluster.close();
        assertThat(cluster.executorProcesses()).as("executor processes after the session stopped").isEmpty();
    }

    @Test
    void anInsertOnTheClusterIsExactAndEachWriteTaskStaysInItsExecutorsMemory() throws Exception {
        spark.sql("CREATE TABLE c.db.plain (id BIGINT, v STRING) TBLPROPERTIES ('bucket' = '-1', 'file.format' = 'parquet')");
        cluster.awaitExecutors(EXECUTORS);
        int mark = cluster.taskEnds().size();
        spark.sql("INSERT INTO c.db.plain SELECT id, " + VALUE + " FROM range(0, " + ROWS + ", 1, 2)");
        cluster.awaitListeners();

        List<TaskEnd> writes = cluster.taskEnds().subList(mark, cluster.taskEnds().size());
        System.err.println("cluster INSERT of " + ROWS + " rows, budget " + BUDGET + ": " + writes);
        assertThat(writes).as("the write tasks").hasSize(2).allMatch(TaskEnd::successful);
        for (TaskEnd task : writes) {
            JsonNode executor = cluster.executor(task.executorId());
            long maxMemory = executor.path("maxMemory").asLong();
            long executorPeak = executor.path("peakMemoryMetrics").path("OnHeapExecutionMemory").asLong();
            System.err.printf("executor %s: maxMemory %d, peakMemoryMetrics.OnHeapExecutionMemory %d;"
                    + " its task's peakOnHeapExecutionMemory %d%n", task.executorId(), maxMemory, executorPeak,
                    task.peakOnHeapExecutionMemory());
            if (SparkLines.PEAK_ON_HEAP) { // Spark 3.5 keeps no task peak of its memory manager
                assertThat(task.peakOnHeapExecutionMemory()).as("task %s's peak in Spark's memory manager", task)
                        .isPositive().isLessThanOrEqualTo(BUDGET).isLessThanOrEqualTo(maxMemory);
            }
            assertThat(executorPeak).as("executor %s's peak execution memory", task.executorId())
                    .isLessThanOrEqualTo(maxMemory);
        }
        assertThat(Tables.readPaimon(Tables.paimon(warehouse, "db", "plain"))).isEqualTo(model(0, ROWS));
    }

    @Test
    void anExecutorKilledMidWriteLeavesItsSpillScopeInItsSparkLocalDirWhileTheApplicationRuns() throws Exception {
        Killed killed = killMidWrite("c", "killed", localDir, "");
        assertThat(killed.scopes()).as("the spill scope of the write held in the killed executor (%d rows written"
                + " into a budget of %d bytes must have spilled)", ROWS / 4, BUDGET).isNotEmpty();
        assertThat(TableFiles.unreferenced(killed.table())).as("files of the table no snapshot references").isEmpty();
        assertThat(spillScopes(localDir)).as("spill scopes under Spark's local dirs after the INSERT: the dead"
                + " executor's only (no live write sweeps another executor's blockmgr dir)")
                .containsExactlyInAnyOrderElementsOf(killed.scopes());
    }

    @Test
    void anExecutorKilledMidWriteHasItsSpillScopeSweptByTheRetriedWriteOnSharedSpillDirs() throws Exception {
        Path spill = Files.createDirectories(dir.resolve("spill"));
        Tables.register(spark, "shared", warehouse, Map.of("governance.memory.budget", Long.toString(BUDGET),
                "governance.memory.page-size", "16k", "governance.spill.dirs", spill.toString()));
        Killed killed = killMidWrite("shared", "killed_shared", spill, "");
        assertThat(killed.scopes()).as("the spill scope of the write held in the killed executor").isNotEmpty();
        assertThat(TableFiles.unreferenced(killed.table())).as("files of the table no snapshot references").isEmpty();
        assertThat(spillScopes(spill)).as("spill scopes under governance.spill.dirs after the INSERT").isEmpty();
    }

    /**
     * An unbuffered append write ({@code write-buffer-for-append = false}) writes its rows straight
     * into an open data file of the table, so the killed attempt leaves that file: no snapshot
     * references it (Paimon leaves such files to its orphan clean), and the next governed write with
     * {@code governance.orphans.older-than = 0s} removes it when it opens.
     */
    @Test
    void anUnbufferedWriteKilledMidWriteLeavesADataFileTheNextWritesOrphanSweepRemoves() throws Exception {
        Killed killed = killMidWrite("c", "killed_unbuffered", localDir, "'write-buffer-for-append' = 'false', ");
        Set<String> orphans = TableFiles.unreferenced(killed.table());
        System.err.println("unreferenced after the INSERT: " + orphans);
        assertThat(orphans).as("files of the table no snapshot references: the killed attempt's").isNotEmpty()
                .allMatch(f -> f.contains("/data-")).allMatch(killed.filesAtKill()::contains);

        Tables.register(spark, "sweeping", warehouse, Map.of("governance.memory.budget", Long.toString(BUDGET),
                "governance.memory.page-size", "16k", "governance.orphans.older-than", "0s"));
        spark.sql("INSERT INTO sweeping.db.killed_unbuffered SELECT id, " + VALUE + " FROM range(" + ROWS + ", "
                + (ROWS + 1) + ", 1, 1)");
        FileStoreTable table = Tables.paimon(warehouse, "db", "killed_unbuffered");
        assertThat(TableFiles.unreferenced(table)).as("files no snapshot references after the next write").isEmpty();
        assertThat(Tables.readPaimon(table)).isEqualTo(model(0, ROWS + 1));
    }

    /** What {@link #killMidWrite} leaves to check: the table, and at the kill its files and the dead write's spill scopes. */
    private record Killed(FileStoreTable table, Set<String> filesAtKill, List<Path> scopes) {}

    /**
     * Writes {@code ROWS} rows into a new append table {@code db.name} through {@code catalog}, both
     * write tasks held at half their rows, kills the executor process of partition 0's task, lets go;
     * checks Spark's view of the loss and retry and the table against the input. {@code options}
     * (empty, or {@code 'key' = 'value', } ...) are added to the table's.
     */
    private static Killed killMidWrite(String catalog, String name, Path spillRoot, String options) throws Exception {
        spark.sql("CREATE TABLE " + catalog + ".db." + name
                + " (id BIGINT, v STRING) TBLPROPERTIES (" + options + "'bucket' = '-1', 'file.format' = 'parquet')");
        cluster.awaitExecutors(EXECUTORS);
        Path markers = Files.createDirectories(dir.resolve("markers-" + name));
        long perPartition = ROWS / 2;
        spark.udf().register("hold", functions.udf(new Hold(markers.toString(), perPartition, perPartition / 2),
                DataTypes.LongType).asNondeterministic());
        int mark = cluster.taskEnds().size();
        CompletableFuture<Void> insert = CompletableFuture.runAsync(() -> spark.sql("INSERT INTO " + catalog + ".db." + name
                + " SELECT hold(id), " + VALUE + " FROM range(0, " + 2 * perPartition + ", 1, 2)"));
        try {
            LocalCluster.await("both write tasks to hold at half their rows (markers in " + markers + ")", HOLD_WAIT,
                    () -> insert.isDone() || held(markers).size() == 2);
            assertThat(insert).as("the INSERT, which must hold").isNotDone();
            Map<String, String[]> holders = held(markers);
            for (String[] holder : holders.values()) {
                String id = holder[1];
                LocalCluster.await("executor " + id + "'s peakMemoryMetrics.OnHeapExecutionMemory (REST) to show the"
                        + " governed write it holds", Duration.ofSeconds(60), () -> onHeapPeak(id) > 0);
                long maxMemory = cluster.executor(id).path("maxMemory").asLong();
                System.err.printf("holding executor %s (pid %s): maxMemory %d, peakMemoryMetrics.OnHeapExecutionMemory %d%n",
                        id, holder[0], maxMemory, onHeapPeak(id));
                assertThat(onHeapPeak(id)).as("executor %s's peak execution memory", id).isLessThanOrEqualTo(maxMemory);
            }

            String[] victim = holders.get("0");
            long victimPid = Long.parseLong(victim[0]);
            List<Path> victimScopes = spillScopes(spillRoot).stream()
                    .filter(p -> p.getFileName().toString().startsWith("paimon-gov-" + victimPid + "-")).toList();
            Set<String> filesAtKill = TableFiles.files(Tables.paimon(warehouse, "db", name));
            System.err.println("at the kill: table files " + filesAtKill + "; spill scopes " + spillScopes(spillRoot));
            cluster.kill(victimPid);
            Files.createFile(markers.resolve("release"));
            insert.get(HOLD_WAIT.toSeconds(), TimeUnit.SECONDS);

            cluster.awaitListeners();
            List<TaskEnd> tasks = cluster.taskEnds().subList(mark, cluster.taskEnds().size());
            System.err.println("task ends of the INSERT: " + tasks);
            JsonNode dead = cluster.executor(victim[1]);
            System.err.println("killed executor " + victim[1] + ": isActive " + dead.path("isActive")
                    + ", removeReason " + dead.path("removeReason"));
            assertThat(dead.path("isActive").asBoolean()).as("executor %s after the kill", victim[1]).isFalse();
            assertThat(tasks.stream().filter(t -> !t.successful()).toList()).as("the failed attempts")
                    .singleElement().satisfies(t -> {
                        assertThat(t.index()).isZero();
                        assertThat(t.executorId()).isEqualTo(victim[1]);
                        assertThat(t.reason()).contains("ExecutorLostFailure");
                    });
            assertThat(tasks.stream().filter(TaskEnd::successful).toList()).as("the successful attempts")
                    .hasSize(2).anySatisfy(t -> assertThat(t.index()).isZero())
                    .anySatisfy(t -> assertThat(t.index()).isOne())
                    .allSatisfy(t -> {
                        if (SparkLines.PEAK_ON_HEAP) {
                            assertThat(t.peakOnHeapExecutionMemory()).as("%s's peak", t).isPositive().isLessThanOrEqualTo(BUDGET);
                        }
                    });

            FileStoreTable table = Tables.paimon(warehouse, "db", name);
            assertThat(Tables.readPaimon(table)).as("the table after the kill").isEqualTo(model(0, 2 * (int) perPartition));
            return new Killed(table, filesAtKill, victimScopes);
        } finally {
            if (!Files.exists(markers.resolve("release"))) {
                Files.createFile(markers.resolve("release"));
            }
            try {
                insert.get(HOLD_WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception ignoredAsTheTestFailsAnyway) {
                // the failure that brought us here is the one to report
            }
        }
    }

    private static final String VALUE = "concat('v-', id, '-', repeat('x', 80))";

    /** {@code id|v} of ids {@code from} (inclusive) to {@code to}, sorted, as the input makes them. */
    private static List<String> model(int from, int to) {
        List<String> rows = new ArrayList<>();
        for (int id = from; id < to; id++) {
            rows.add(id + "|v-" + id + "-" + "x".repeat(80));
        }
        rows.sort(null);
        return rows;
    }

    private static long onHeapPeak(String executorId) {
        return cluster.executor(executorId).path("peakMemoryMetrics").path("OnHeapExecutionMemory").asLong();
    }

    /** Partition index to {pid, executor id} of the write tasks holding now. */
    private static Map<String, String[]> held(Path markers) {
        Map<String, String[]> held = new HashMap<>();
        try (Stream<Path> files = Files.list(markers)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.startsWith("held-") && !name.endsWith(".tmp")) {
                    held.put(name.substring("held-".length()), Files.readString(file).trim().split(" "));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return held;
    }

    /** Every spill scope ({@code paimon-gov-*}) under {@code root}, at any depth. */
    private static List<Path> spillScopes(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> p.getFileName().toString().startsWith("paimon-gov-") && Files.isDirectory(p)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The identity on ids, which in attempt 0 of a task stops at the id {@code offset} rows into its
     * partition ({@code perPartition} ids each, in order): writes {@code held-<partition>} (this pid
     * and executor id) into {@code markers}, then waits for {@code markers/release}.
     */
    private static final class Hold implements UDF1<Long, Long> {
        private final String markers;
        private final long perPartition;
        private final long offset;

        Hold(String markers, long perPartition, long offset) {
            this.markers = markers;
            this.perPartition = perPartition;
            this.offset = offset;
        }

        @Override
        public Long call(Long id) throws Exception {
            TaskContext task = TaskContext.get();
            if (id % perPartition == offset && task.attemptNumber() == 0) {
                Path dir = Path.of(markers);
                Path tmp = dir.resolve("held-" + task.partitionId() + ".tmp");
                Files.writeString(tmp, ProcessHandle.current().pid() + " " + SparkEnv.get().executorId());
                Files.move(tmp, dir.resolve("held-" + task.partitionId()));
                long deadline = System.nanoTime() + HOLD_WAIT.toNanos();
                while (!Files.exists(dir.resolve("release"))) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("no release in " + HOLD_WAIT + " (" + dir + ")");
                    }
                    Thread.sleep(50);
                }
            }
            return id;
        }
    }
}
