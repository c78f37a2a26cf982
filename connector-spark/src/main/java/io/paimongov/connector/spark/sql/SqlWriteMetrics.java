package io.paimongov.connector.spark.sql;

import io.paimongov.spark.SparkWriteAccumulators;
import io.paimongov.spark.SparkWriteAccumulators.Field;
import io.paimongov.spark.SparkWriteAccumulators.Kind;
import java.util.Arrays;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The catalog's write metrics in Spark's SQL tab: one DataSource V2 custom metric per {@link
 * Field}, named and described as its accumulator ({@code paimonGovernance.spillBytes}; a peak's
 * description ends in {@code (max)}). Their values are reported by the driver once the write's job
 * ended ({@code Write.reportDriverMetrics}): the accumulators' values, so every write task's final
 * snapshot, failed attempts included. Spark calls {@code reportDriverMetrics} for batch writes
 * only; a streaming micro-batch's write node shows none of them (its accumulators have the values).
 *
 * <p>Spark makes each metric class by name with its no-arg constructor (in the driver's status
 * listener, and in a history server that has this jar), hence one public nested class per field.
 * Stateless; thread-safe.
 */
public final class SqlWriteMetrics {

    private SqlWriteMetrics() {}

    /** The metrics a governed write declares, one per field. */
    static CustomMetric[] metrics() {
        return new CustomMetric[] {
            new Writes(), new BudgetBytes(), new PeakReservedBytes(), new ReservedBytes(), new InputRows(), new InputBytes(),
            new OutputFiles(), new OutputBytes(), new FlushCount(), new SpillCount(), new SpillFiles(), new SpillBytes(),
            new SpillFilesLeft(), new CompactionCount(), new Cancellations(), new ResourceExhaustedCount(), new CleanupFailures()
        };
    }

    /** The driver's values of {@code accumulators}, one per metric. */
    static CustomTaskMetric[] values(SparkWriteAccumulators accumulators) {
        return Arrays.stream(Field.values())
                .map(field -> new Value(field.accumulatorName(), accumulators.value(field)))
                .toArray(CustomTaskMetric[]::new);
    }

    private record Value(String name, long value) implements CustomTaskMetric {}

    /** A field's metric: the driver reports one value, shown as it is (the sum or max of all writes). */
    abstract static class Metric implements CustomMetric {
        private final Field field;

        Metric(Field field) {
            this.field = field;
        }

        @Override
        public String name() {
            return field.accumulatorName();
        }

        @Override
        public String description() {
            return field.accumulatorName() + (field.kind() == Kind.MAX ? " (max)" : "");
        }

        /** Spark passes the driver's value here; several values (none reach it today) combine as the field does. */
        @Override
        public String aggregateTaskMetrics(long[] values) {
            long value = field.kind() == Kind.MAX ? Arrays.stream(values).max().orElse(0) : Arrays.stream(values).sum();
            return Long.toString(value);
        }
    }

    public static final class Writes extends Metric { public Writes() { super(Field.WRITES); } }
    public static final class BudgetBytes extends Metric { public BudgetBytes() { super(Field.BUDGET_BYTES); } }
    public static final class PeakReservedBytes extends Metric { public PeakReservedBytes() { super(Field.PEAK_RESERVED_BYTES); } }
    public static final class ReservedBytes extends Metric { public ReservedBytes() { super(Field.RESERVED_BYTES); } }
    public static final class InputRows extends Metric { public InputRows() { super(Field.INPUT_ROWS); } }
    public static final class InputBytes extends Metric { public InputBytes() { super(Field.INPUT_BYTES); } }
    public static final class OutputFiles extends Metric { public OutputFiles() { super(Field.OUTPUT_FILES); } }
    public static final class OutputBytes extends Metric { public OutputBytes() { super(Field.OUTPUT_BYTES); } }
    public static final class FlushCount extends Metric { public FlushCount() { super(Field.FLUSH_COUNT); } }
    public static final class SpillCount extends Metric { public SpillCount() { super(Field.SPILL_COUNT); } }
    public static final class SpillFiles extends Metric { public SpillFiles() { super(Field.SPILL_FILES); } }
    public static final class SpillBytes extends Metric { public SpillBytes() { super(Field.SPILL_BYTES); } }
    public static final class SpillFilesLeft extends Metric { public SpillFilesLeft() { super(Field.SPILL_FILES_LEFT); } }
    public static final class CompactionCount extends Metric { public CompactionCount() { super(Field.COMPACTION_COUNT); } }
    public static final class Cancellations extends Metric { public Cancellations() { super(Field.CANCELLATIONS); } }
    public static final class ResourceExhaustedCount extends Metric {
        public ResourceExhaustedCount() { super(Field.RESOURCE_EXHAUSTED_COUNT); }
    }
    public static final class CleanupFailures extends Metric { public CleanupFailures() { super(Field.CLEANUP_FAILURES); } }
}
