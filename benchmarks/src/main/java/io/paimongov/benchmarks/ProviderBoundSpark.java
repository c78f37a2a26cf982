package io.paimongov.benchmarks;

import io.paimongov.runtime.Providers;
import io.paimongov.spi.EngineEnvironment;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * The {@code spark} side of {@link ProviderBoundChild}: the write runs in a task of a local Spark
 * context ({@code local[1]}, no UI, {@code spark.unsafe.exceptionOnMemoryLeak}), as a governed Spark
 * writer does, with the task's {@link TaskContext} as its engine environment, so the pages' memory
 * comes from the executor's {@code UnifiedMemoryManager} through the task's {@link
 * TaskMemoryManager}. The engine's counter is the task's ({@link
 * TaskMemoryManager#getMemoryConsumptionForThisTask}), its own peak the task's peak execution memory
 * on and off heap, what Spark reports as the task's {@code peakOnHeapExecutionMemory} and {@code
 * peakOffHeapExecutionMemory}. Spark's memory is {@code spark.testing.memory} = {@value
 * #SPARK_MEMORY_BYTES} bytes (Spark refuses a smaller JVM without it): far more execution memory
 * than the budget, so the counter shows what the write took. A trivial job before the baselines
 * loads the scheduler's and the task's classes; the driver's bookkeeping during the write's job
 * counts against the write. Local mode runs the task in this JVM, so the result comes back through
 * a static field.
 */
final class ProviderBoundSpark {

    static final long SPARK_MEMORY_BYTES = 512L << 20;
    private static final AtomicReference<String> RESULT = new AtomicReference<>();

    private ProviderBoundSpark() {}

    /** Runs the write in a task and returns its result pairs. */
    static String run(ProviderBoundChild.Settings s) throws Exception {
        SparkConf conf = new SparkConf()
                .setMaster("local[1]")
                .setAppName("p2-spark")
                .set("spark.ui.enabled", "false")
                .set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.testing.memory", Long.toString(SPARK_MEMORY_BYTES))
                .set("spark.unsafe.exceptionOnMemoryLeak", "true")
                .set("spark.local.dir", s.dir().resolve("spark-local").toString());
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            spark.parallelize(List.of(1, 2, 3), 1).count();
            BenchTables.create(ProviderBoundChild.warehouse(s), BenchTables.Shape.primaryKey(s.buckets()));
            spark.parallelize(List.of(0), 1).foreachPartition(ignored -> RESULT.set(inTask(s)));
        }
        String result = RESULT.get();
        if (result == null) {
            throw new IllegalStateException("the Spark task ended without a result");
        }
        return result;
    }

    private static String inTask(ProviderBoundChild.Settings s) throws Exception {
        TaskContext task = TaskContext.get();
        TaskMemoryManager tmm = task.taskMemoryManager();
        FileStoreTable table = BenchTables.table(ProviderBoundChild.warehouse(s));
        return ProviderBoundChild.measure(s, table, Providers.load("spark", ProviderBoundSpark.class.getClassLoader()),
                EngineEnvironment.builder().with(TaskContext.class, task).build(), tmm::getMemoryConsumptionForThisTask,
                () -> ProviderBoundChild.sparkPeak(tmm));
    }
}
