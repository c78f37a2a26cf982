package io.paimongov.spark;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.Serializable;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.apache.spark.SparkContext;
import org.apache.spark.util.AccumulatorV2;
import org.apache.spark.util.LongAccumulator;
import scala.Option;

/**
 * What a governed Spark write reports beyond Spark's fixed task metrics: one named accumulator per
 * {@link Field}, {@code paimonGovernance.<field>}, registered on the driver for one write job (a
 * statement's write, a micro-batch, a job of an engine) and shipped to its tasks. A write whose
 * {@link io.paimongov.spi.EngineEnvironment} carries this object adds its final snapshot to it when
 * it closes, once per write (METRICS.2), committed, aborted or failed alike. Spark then shows every
 * accumulator per stage and per task in its UI, and a {@code SparkListener} finds each task's
 * update in {@code SparkListenerTaskEnd.taskInfo().accumulables()}.
 *
 * <p>How values combine: the counts ({@link Kind#SUM}) add up over the writes of a task and over
 * the tasks of a job; the peaks ({@link Kind#MAX}: the budget and the peak accounted memory) take
 * the largest, in a task and over the tasks, so the stage's value in the UI is the largest peak of
 * a write of the stage. The accumulators count failed values ({@code countFailedValues}): the
 * writes of failed or killed task attempts report too, each once.
 *
 * <p><b>Thread-safety:</b> {@link #register} and {@link #value} on the driver; the provider's
 * reporter adds from the write's cleanup thread (the task thread, or the runtime's cancel thread
 * before the task ends), serialized by this object's lock. Serializable: Spark ships a zero copy
 * of each accumulator to a task and merges what the task added back into the driver's. Never throws
 * after registration.
 */
public final class SparkWriteAccumulators implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The name every accumulator starts with. */
    public static final String PREFIX = "paimonGovernance.";

    /** How the values of several writes or tasks combine. */
    public enum Kind {
        /** Added up. */
        SUM,
        /** The largest wins. */
        MAX
    }

    /**
     * The reported fields: each a {@link MetricsSnapshot} component of the same name (exact or
     * estimate as docs/metrics.md says), except {@link #WRITES}. Values are the final snapshot's.
     */
    public enum Field {
        /** 1 per write that closed. */
        WRITES("writes", Kind.SUM, s -> 1),
        BUDGET_BYTES("budgetBytes", Kind.MAX, MetricsSnapshot::budgetBytes),
        PEAK_RESERVED_BYTES("peakReservedBytes", Kind.MAX, MetricsSnapshot::peakReservedBytes),
        /** Accounted memory after the close: 0 when every byte went back. */
        RESERVED_BYTES("reservedBytes", Kind.SUM, MetricsSnapshot::reservedBytes),
        INPUT_ROWS("inputRows", Kind.SUM, MetricsSnapshot::inputRows),
        INPUT_BYTES("inputBytes", Kind.SUM, MetricsSnapshot::inputBytes),
        OUTPUT_FILES("outputFiles", Kind.SUM, MetricsSnapshot::outputFiles),
        OUTPUT_BYTES("outputBytes", Kind.SUM, MetricsSnapshot::outputBytes),
        FLUSH_COUNT("flushCount", Kind.SUM, MetricsSnapshot::flushCount),
        SPILL_COUNT("spillCount", Kind.SUM, MetricsSnapshot::spillCount),
        SPILL_FILES("spillFiles", Kind.SUM, MetricsSnapshot::spillFiles),
        SPILL_BYTES("spillBytes", Kind.SUM, MetricsSnapshot::spillBytes),
        /** Spill files left after the close: 0 when the spill scope was deleted. */
        SPILL_FILES_LEFT("spillFilesLeft", Kind.SUM, MetricsSnapshot::spillFilesLeft),
        COMPACTION_COUNT("compactionCount", Kind.SUM, MetricsSnapshot::compactionCount),
        CANCELLATIONS("cancellations", Kind.SUM, MetricsSnapshot::cancellations),
        RESOURCE_EXHAUSTED_COUNT("resourceExhaustedCount", Kind.SUM, MetricsSnapshot::resourceExhaustedCount),
        CLEANUP_FAILURES("cleanupFailures", Kind.SUM, MetricsSnapshot::cleanupFailures);

        private final String field;
        private final Kind kind;
        private final ToLongFunction<MetricsSnapshot> value;

        Field(String field, Kind kind, ToLongFunction<MetricsSnapshot> value) {
            this.field = field;
            this.kind = kind;
            this.value = value;
        }

        /** The field's name, as the snapshot's component: {@code spillBytes}. */
        public String field() {
            return field;
        }

        /** The accumulator's name: {@code paimonGovernance.spillBytes}. */
        public String accumulatorName() {
            return PREFIX + field;
        }

        public Kind kind() {
            return kind;
        }

        long of(MetricsSnapshot snapshot) {
            return value.applyAsLong(snapshot);
        }
    }

    private final EnumMap<Field, AccumulatorV2<Long, Long>> accumulators;

    private SparkWriteAccumulators(EnumMap<Field, AccumulatorV2<Long, Long>> accumulators) {
        this.accumulators = accumulators;
    }

    /**
     * Registers a new set of accumulators on {@code spark}, for one write job. Call on the driver
     * and ship the result to the job's tasks with the job's functions.
     */
    public static SparkWriteAccumulators register(SparkContext spark) {
        EnumMap<Field, AccumulatorV2<Long, Long>> accumulators = new EnumMap<>(Field.class);
        for (Field field : Field.values()) {
            AccumulatorV2<Long, Long> accumulator = field.kind == Kind.MAX ? new MaxAccumulator() : new LongAccumulator();
            // Spark's private[spark] register: the public one drops the values of failed tasks.
            accumulator.register(spark, Option.apply(field.accumulatorName()), true);
            accumulators.put(field, accumulator);
        }
        return new SparkWriteAccumulators(accumulators);
    }

    /**
     * On the driver: {@code field} over the tasks that ended so far (failed attempts included); 0
     * before any. Inside a task: what this task's writes added.
     */
    public long value(Field field) {
        synchronized (this) {
            return accumulators.get(field).value();
        }
    }

    /** Adds a write's final snapshot: every field once. */
    void add(MetricsSnapshot last) {
        synchronized (this) {
            for (Map.Entry<Field, AccumulatorV2<Long, Long>> e : accumulators.entrySet()) {
                e.getValue().add(e.getKey().of(last));
            }
        }
    }
}
