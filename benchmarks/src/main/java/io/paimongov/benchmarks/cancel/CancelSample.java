package io.paimongov.benchmarks.cancel;

import java.util.List;

/**
 * One cancelled job, as the engine recorded it. Times are milliseconds from just before the cancel
 * call, on the clock the engine stamps its events with (this JVM's {@code
 * System.currentTimeMillis()}).
 *
 * @param tasksMillis until the last of the job's tasks ended: Flink's last task {@code CANCELED},
 *     Spark's last task end event
 * @param jobMillis until the job ended: Flink's job {@code CANCELED}, Spark's job end event (which
 *     Spark posts when it cancels the job, before its tasks stop)
 * @param tasks the job's tasks (Flink: subtasks of every vertex; Spark: tasks launched)
 * @param tasksCancelled of them, those the cancel ended (Flink {@code CANCELED}, Spark {@code
 *     TaskKilled}); the others had finished before it
 * @param rowsAtCancel rows handed to the sink when the cancel was made
 * @param left what the job left behind
 *
 * <p>Immutable.
 */
public record CancelSample(long tasksMillis, long jobMillis, int tasks, int tasksCancelled, long rowsAtCancel, Leftovers left) {

    /**
     * The samples of both sides of a run, in run order (the warm-up pair left out).
     *
     * @param engine {@code flink} or {@code spark}
     */
    public record Result(String engine, List<CancelSample> paimon, List<CancelSample> governed) {

        public Result {
            paimon = List.copyOf(paimon);
            governed = List.copyOf(governed);
        }
    }
}
