package io.paimongov.benchmarks.cancel;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.data.InternalRow;
import org.apache.spark.InterruptibleIterator;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;

/**
 * The task side of {@link SparkCancel}, in the driver's JVM (local mode runs the tasks there): rows
 * handed to the write, counted per job group (the cancel's trigger), and the execution memory each
 * task still held when its completion listeners had run.
 *
 * <p>The memory is Spark's own counter ({@code TaskMemoryManager.getMemoryConsumptionForThisTask()},
 * what every consumer of the task holds), read by a completion listener registered before the
 * write's own: Spark runs completion listeners in the reverse order of registration, so it reads
 * after the write's listener closed the write, and before Spark frees what is left
 * ({@code cleanUpAllAllocatedMemory}). Spark reports such a leak only for a task that did not fail
 * ({@code spark.unsafe.exceptionOnMemoryLeak}); a killed task's leak shows only here.
 *
 * <p>Thread-safe: task threads write, the harness reads.
 */
final class TaskProbe {

    private static final ConcurrentMap<String, AtomicLong> ROWS = new ConcurrentHashMap<>();
    private static final ConcurrentMap<String, AtomicLong> TASKS_DONE = new ConcurrentHashMap<>();
    private static final ConcurrentMap<String, AtomicLong> HELD_AT_END = new ConcurrentHashMap<>();

    private TaskProbe() {}

    /** Starts counting for {@code group}. */
    static void start(String group) {
        ROWS.put(group, new AtomicLong());
        TASKS_DONE.put(group, new AtomicLong());
        HELD_AT_END.put(group, new AtomicLong());
    }

    /** Forgets {@code group}. */
    static void forget(String group) {
        ROWS.remove(group);
        TASKS_DONE.remove(group);
        HELD_AT_END.remove(group);
    }

    /**
     * In a task, before its write opens: reads the task's execution memory once its completion
     * listeners (the write's among them) have run, and returns {@code rows} as Spark's sources hand
     * them out (an {@link InterruptibleIterator}, which stops at a kill), counted for {@code group}.
     */
    static Iterator<InternalRow> watch(String group, Iterator<InternalRow> rows) {
        TaskContext task = TaskContext.get();
        task.addTaskCompletionListener((TaskCompletionListener) ended -> {
            HELD_AT_END.get(group).addAndGet(ended.taskMemoryManager().getMemoryConsumptionForThisTask());
            TASKS_DONE.get(group).incrementAndGet();
        });
        AtomicLong count = ROWS.get(group);
        Iterator<InternalRow> counted = new Iterator<>() {
            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public InternalRow next() {
                count.incrementAndGet();
                return rows.next();
            }
        };
        return scala.jdk.javaapi.CollectionConverters.asJava(
                new InterruptibleIterator<>(task, scala.jdk.javaapi.CollectionConverters.asScala(counted)));
    }

    static long rows(String group) {
        return ROWS.get(group).get();
    }

    /** Tasks of {@code group} whose completion listeners ran. */
    static long tasksDone(String group) {
        return TASKS_DONE.get(group).get();
    }

    /** Execution memory the tasks of {@code group} held after their completion listeners, summed. */
    static long heldAtEnd(String group) {
        return HELD_AT_END.get(group).get();
    }
}
