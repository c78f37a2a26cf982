package io.paimongov.spark;

import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ties a write to its Spark task's end. When the task fails (a kill included), the write is
 * cancelled with the failure as reason. When the task ends, successfully or not, and the write's
 * memory is still held (its context was not closed), the write is cancelled and every byte goes
 * back to the task's memory manager at once, on the task thread: Spark checks for leaked execution
 * memory right after its completion listeners ("Managed memory leak detected", an error with {@code
 * spark.unsafe.exceptionOnMemoryLeak=true}), before the runtime's own cancel cleanup (on its
 * daemon thread) could finish. That cleanup still closes Paimon's write and deletes the spill scope;
 * the pages it then returns are heap arrays no longer counted.
 *
 * <p>Spark runs these listeners on the task thread, in reverse order of registration: a helper
 * that registers its own listener after opening the write (as {@link GovernedPaimonWriter} does)
 * closes the write first, and these listeners then find nothing held.
 *
 * <p>Stateless apart from what it registers; the listeners never throw.
 */
final class TaskLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(TaskLifecycle.class);

    private TaskLifecycle() {}

    static void bind(TaskContext task, SparkTaskCancellation cancellation, SparkSegmentAllocator memory) {
        // A killed task fails with a TaskKilledException that does not say why; the context does.
        task.addTaskFailureListener((TaskFailureListener) (context, error) ->
                cancellation.fire("spark task " + context.taskAttemptId()
                        + (context.getKillReason().isDefined() ? " killed: " + context.getKillReason().get() : " failed: " + error)));
        task.addTaskCompletionListener((TaskCompletionListener) context -> {
            if (memory.isClosed()) {
                return;
            }
            cancellation.fire("spark task " + context.taskAttemptId() + " ended with the write still open");
            try {
                memory.close();
            } catch (IllegalStateException held) {
                LOG.warn("a write was still open when spark task {} ended; its memory was given back: {}",
                        context.taskAttemptId(), held.getMessage());
            }
        });
    }
}
