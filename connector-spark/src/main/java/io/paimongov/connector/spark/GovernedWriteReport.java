package io.paimongov.connector.spark;

import io.paimongov.spark.SparkWriteAccumulators.Field;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the governed writes of some Spark jobs reported ({@link GovernedWriteReports}): an immutable
 * summary of the per-task updates of the {@code paimonGovernance.*} accumulators. Counts are summed
 * over the task attempts, failed ones included; {@code budgetBytes} and {@code peakReservedBytes}
 * are the largest of any write. Each field is the {@code MetricsSnapshot} field of the same name at
 * the write's close (docs/metrics.md says which are exact); {@code reservedBytes} and {@code
 * spillFilesLeft} are therefore 0 when every write gave everything back.
 *
 * @param jobs the Spark jobs with at least one reporting task, ascending
 * @param tasks task attempts that reported (a task attempt whose write never opened, because it got
 *     no rows, reports nothing)
 * @param failedTasks of those, attempts that failed or were killed
 * @param writes governed writes that closed: 1 per write, so a retried task counts each attempt
 */
public record GovernedWriteReport(
        List<Integer> jobs,
        long tasks,
        long failedTasks,
        long writes,
        long budgetBytes,
        long peakReservedBytes,
        long reservedBytes,
        long inputRows,
        long inputBytes,
        long outputFiles,
        long outputBytes,
        long flushCount,
        long spillCount,
        long spillFiles,
        long spillBytes,
        long spillFilesLeft,
        long compactionCount,
        long cancellations,
        long resourceExhaustedCount,
        long cleanupFailures) {

    public GovernedWriteReport {
        jobs = List.copyOf(jobs);
    }

    /** A report of {@code values}, indexed by {@link Field#ordinal()}. */
    static GovernedWriteReport of(List<Integer> jobs, long tasks, long failedTasks, long[] values) {
        return new GovernedWriteReport(jobs, tasks, failedTasks,
                values[Field.WRITES.ordinal()],
                values[Field.BUDGET_BYTES.ordinal()],
                values[Field.PEAK_RESERVED_BYTES.ordinal()],
                values[Field.RESERVED_BYTES.ordinal()],
                values[Field.INPUT_ROWS.ordinal()],
                values[Field.INPUT_BYTES.ordinal()],
                values[Field.OUTPUT_FILES.ordinal()],
                values[Field.OUTPUT_BYTES.ordinal()],
                values[Field.FLUSH_COUNT.ordinal()],
                values[Field.SPILL_COUNT.ordinal()],
                values[Field.SPILL_FILES.ordinal()],
                values[Field.SPILL_BYTES.ordinal()],
                values[Field.SPILL_FILES_LEFT.ordinal()],
                values[Field.COMPACTION_COUNT.ordinal()],
                values[Field.CANCELLATIONS.ordinal()],
                values[Field.RESOURCE_EXHAUSTED_COUNT.ordinal()],
                values[Field.CLEANUP_FAILURES.ordinal()]);
    }

    /**
     * Every number by name, in a fixed order: {@code tasks}, {@code failedTasks}, then the fields
     * as the accumulators name them without their prefix ({@code writes}, {@code budgetBytes}, ...).
     */
    public Map<String, Long> asMap() {
        Map<String, Long> map = new LinkedHashMap<>();
        map.put("tasks", tasks);
        map.put("failedTasks", failedTasks);
        map.put(Field.WRITES.field(), writes);
        map.put(Field.BUDGET_BYTES.field(), budgetBytes);
        map.put(Field.PEAK_RESERVED_BYTES.field(), peakReservedBytes);
        map.put(Field.RESERVED_BYTES.field(), reservedBytes);
        map.put(Field.INPUT_ROWS.field(), inputRows);
        map.put(Field.INPUT_BYTES.field(), inputBytes);
        map.put(Field.OUTPUT_FILES.field(), outputFiles);
        map.put(Field.OUTPUT_BYTES.field(), outputBytes);
        map.put(Field.FLUSH_COUNT.field(), flushCount);
        map.put(Field.SPILL_COUNT.field(), spillCount);
        map.put(Field.SPILL_FILES.field(), spillFiles);
        map.put(Field.SPILL_BYTES.field(), spillBytes);
        map.put(Field.SPILL_FILES_LEFT.field(), spillFilesLeft);
        map.put(Field.COMPACTION_COUNT.field(), compactionCount);
        map.put(Field.CANCELLATIONS.field(), cancellations);
        map.put(Field.RESOURCE_EXHAUSTED_COUNT.field(), resourceExhaustedCount);
        map.put(Field.CLEANUP_FAILURES.field(), cleanupFailures);
        return Collections.unmodifiableMap(map);
    }
}
