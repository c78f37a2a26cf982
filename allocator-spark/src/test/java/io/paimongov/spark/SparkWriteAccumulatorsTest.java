package io.paimongov.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spark.SparkWriteAccumulators.Field;
import io.paimongov.spark.SparkWriteAccumulators.Kind;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The provider's reporter adds a write's final snapshot to the accumulators the environment
 * carries: in a real local Spark job (4 tasks, one of them failing once after its write closed and
 * run again), every task hands its provider a snapshot made from its partition and attempt number,
 * and the driver's accumulators and each task's update in {@code SparkListenerTaskEnd} must equal
 * the sums and maxima of those snapshots, the failed attempt's included, once each.
 */
class SparkWriteAccumulatorsTest {

    private static final int PARTITIONS = 4;
    private static final int FAILING = 3;

    private static JavaSparkContext spark;
    private static final Updates UPDATES = new Updates();

    @BeforeAll
    static void start() {
        SparkConf conf = new SparkConf()
                .setMaster("local[2,2]")
                .setAppName("spark-write-accumulators-test")
                .set("spark.testing.memory", Long.toString(600L << 20))
                .set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.ui.enabled", "false")
                .set("spark.unsafe.exceptionOnMemoryLeak", "true");
        spark = new JavaSparkContext(new SparkContext(conf));
        spark.sc().addSparkListener(UPDATES);
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    @Test
    void everyWriteAddsItsFinalSnapshotOnceFailedAttemptsIncluded() throws TimeoutException {
        SparkWriteAccumulators accumulators = SparkWriteAccumulators.register(spark.sc());
        List<Integer> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(p);
        }
        spark.parallelize(partitions, PARTITIONS).foreachPartition(rows -> closeOneWrite(accumulators));
        spark.sc().listenerBus().waitUntilEmpty(30_000);

        // The model: partitions 0..3 at attempt 0, and partition 3 again at attempt 1.
        List<MetricsSnapshot> closed = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            closed.add(snapshot(p, 0));
        }
        closed.add(snapshot(FAILING, 1));
        for (Field field : Field.values()) {
            long expected = field.kind() == Kind.MAX
                    ? closed.stream().mapToLong(field::of).max().orElseThrow()
                    : closed.stream().mapToLong(field::of).sum();
            assertThat(accumulators.value(field)).as("driver value of %s", field.accumulatorName()).isEqualTo(expected);
        }
        assertThat(accumulators.value(Field.WRITES)).isEqualTo(PARTITIONS + 1);

        assertThat(UPDATES.byAttempt.keySet()).as("task attempts that reported (partition/attempt)")
                .containsExactlyInAnyOrder("0/0", "1/0", "2/0", "3/0", "3/1");
        UPDATES.byAttempt.forEach((attempt, updates) -> {
            String[] pa = attempt.split("/");
            MetricsSnapshot model = snapshot(Integer.parseInt(pa[0]), Integer.parseInt(pa[1]));
            EnumMap<Field, Long> expected = new EnumMap<>(Field.class);
            for (Field field : Field.values()) {
                expected.put(field, field.of(model));
            }
            assertThat(updates).as("the update of task attempt %s", attempt).isEqualTo(expected);
        });
    }

    /** The body of one task: a provider opened with the task and the accumulators, one write closed, and partition 3's first attempt failing after it. */
    private static void closeOneWrite(SparkWriteAccumulators accumulators) throws Exception {
        TaskContext task = TaskContext.get();
        GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "4m"));
        EngineEnvironment environment = EngineEnvironment.builder()
                .with(TaskContext.class, task)
                .with(SparkWriteAccumulators.class, accumulators)
                .build();
        EngineResources resources = new SparkGovernanceProvider().open(options.providerOptions(), environment);
        resources.metrics().writeClosed("write", snapshot(task.partitionId(), task.attemptNumber()));
        resources.close();
        if (task.partitionId() == FAILING && task.attemptNumber() == 0) {
            throw new IllegalStateException("injected: the task fails after its write closed");
        }
    }

    /** A snapshot whose numeric fields are distinct per partition, attempt and field: 1,000 x (partition + 1) + 100 x attempt + field index. */
    static MetricsSnapshot snapshot(int partition, int attempt) {
        long base = 1_000L * (partition + 1) + 100L * attempt;
        RecordComponent[] components = MetricsSnapshot.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            values[i] = types[i] == long.class ? (Object) (base + i) : types[i] == double.class ? (Object) (base + i + 0.5) : Map.of();
        }
        try {
            return MetricsSnapshot.class.getDeclaredConstructor(types).newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** Each task attempt's updates of the {@code paimonGovernance.*} accumulators, as Spark's listener bus delivers them. */
    private static final class Updates extends SparkListener {
        final Map<String, EnumMap<Field, Long>> byAttempt = new ConcurrentHashMap<>();

        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            EnumMap<Field, Long> updates = new EnumMap<>(Field.class);
            // Through Scala's iterator, which Scala 2.12 and 2.13 share (2.12 has no scala.jdk.javaapi).
            scala.collection.Iterator<AccumulableInfo> infos = end.taskInfo().accumulables().iterator();
            while (infos.hasNext()) {
                AccumulableInfo info = infos.next();
                for (Field field : Field.values()) {
                    if (info.name().isDefined() && info.name().get().equals(field.accumulatorName()) && info.update().isDefined()) {
                        updates.put(field, (Long) info.update().get());
                    }
                }
            }
            if (!updates.isEmpty()) {
                byAttempt.put(end.taskInfo().index() + "/" + end.taskInfo().attemptNumber(), updates);
            }
        }
    }
}
