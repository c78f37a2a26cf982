package io.paimongov.spark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
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
 * <p>One failure and one completion listener per task, however many writes the task opens: Spark
 * keeps a task's listeners until the task ends and cannot remove one, so a listener per write would
 * pile up in a task that writes many times (docs/spi.md RES.5). The first write of a task registers
 * them; they act on the task's writes whose memory is still open then. A write that closed is
 * dropped from its task's list when the next write of the task opens, and the list is emptied when
 * the task ends; a write opened on a task that already failed or ended is cancelled (and its memory
 * given back) at once, as a listener registered late would be run at once.
 *
 * <p>Spark runs these listeners on the task thread, in reverse order of registration: a helper
 * that registers its own listener after opening the write (as {@link GovernedPaimonWriter} does)
 * closes the write first, and these listeners then find nothing held.
 *
 * <p>Thread-safe; the listeners never throw.
 */
final class TaskLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(TaskLifecycle.class);

    /** The writes of each task whose end has listeners here; an ended task's entry holds nothing and goes with the task. */
    private static final Map<TaskContext, TaskWrites> TASKS = Collections.synchronizedMap(new WeakHashMap<>());

    private TaskLifecycle() {}

    static void bind(TaskContext task, SparkTaskCancellation cancellation, SparkSegmentAllocator memory) {
        TaskWrites writes;
        boolean first;
        synchronized (TASKS) {
            writes = TASKS.get(task);
            first = writes == null;
            if (first) {
                writes = new TaskWrites();
                TASKS.put(task, writes);
            }
        }
        writes.add(new Write(cancellation, memory));
        if (first) {
            TaskWrites ofTask = writes;
            // A killed task fails with a TaskKilledException that does not say why; the context does.
            task.addTaskFailureListener((TaskFailureListener) (context, error) ->
                    ofTask.failed("spark task " + context.taskAttemptId()
                            + (context.getKillReason().isDefined() ? " killed: " + context.getKillReason().get() : " failed: " + error)));
            task.addTaskCompletionListener((TaskCompletionListener) context -> ofTask.ended(context.taskAttemptId()));
        }
    }

    /** One write of a task: its cancel to fire and its memory to give back if the task ends first. */
    private record Write(SparkTaskCancellation cancellation, SparkSegmentAllocator memory) {

        void end(long taskAttemptId) {
            if (memory.isClosed()) {
                return;
            }
            cancellation.fire("spark task " + taskAttemptId + " ended with the write still open");
            try {
                memory.close();
            } catch (IllegalStateException held) {
                LOG.warn("a write was still open when spark task {} ended; its memory was given back: {}",
                        taskAttemptId, held.getMessage());
            }
        }
    }

    /** The open writes of one task, and how the task ended once it did. Guarded by its own monitor. */
    private static final class TaskWrites {
        private final List<Write> open = new ArrayList<>();
        private String failure;
        private long endedTask = -1;

        /** Adds {@code write}; on a task that already failed or ended, does to it what the listener did to the others. */
        void add(Write write) {
            String failedWith;
            long ended;
            synchronized (this) {
                open.removeIf(w -> w.memory().isClosed());
                failedWith = failure;
                ended = endedTask;
                if (ended < 0) {
                    open.add(write);
                }
            }
            if (failedWith != null) {
                write.cancellation().fire(failedWith);
            }
            if (ended >= 0) {
                write.end(ended);
            }
        }

        void failed(String reason) {
            List<Write> now;
            synchronized (this) {
                failure = reason;
                now = List.copyOf(open);
            }
            now.forEach(w -> w.cancellation().fire(reason));
        }

        void ended(long taskAttemptId) {
            List<Write> now;
            synchronized (this) {
                endedTask = taskAttemptId;
                now = List.copyOf(open);
                open.clear();
            }
            now.forEach(w -> w.end(taskAttemptId));
        }
    }
}
