package io.paimongov.spark;

import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;

/** Another consumer of the task's execution memory that never gives anything back when Spark asks. */
final class StubbornConsumer extends MemoryConsumer {

    StubbornConsumer(TaskMemoryManager tmm) {
        super(tmm, MemoryMode.ON_HEAP);
    }

    @Override
    public long spill(long size, MemoryConsumer trigger) {
        return 0;
    }
}
