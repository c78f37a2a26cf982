package io.paimongov.benchmarks;

import io.paimongov.spi.EngineEnvironment;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.runtime.memory.MemoryAllocationException;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * The engine's own call for one page of memory, taken and given straight back: what an engine's
 * native code pays for the page an allocator module hands to Paimon. {@link PagePair} measures a
 * provider against it.
 *
 * <ul>
 *   <li>{@code heap}: {@code new byte[pageSize]}; the garbage collector gives it back.
 *   <li>{@code offheap}: {@link BufferAllocator#buffer(long)} on the engine's Arrow allocator, then
 *       {@link ArrowBuf#close()}.
 *   <li>{@code flink}: {@link MemoryManager#allocatePages(Object, java.util.Collection, int)} of one
 *       page, then {@link MemoryManager#release(java.util.Collection)}.
 *   <li>{@code spark}: a {@link MemoryConsumer} of the task that acquires {@code pageSize} bytes of
 *       execution memory, allocates the {@code byte[]} it accounts for and frees the memory again;
 *       the least a Spark consumer that holds {@code byte[]} pages must do (Spark's own pages are
 *       {@code long[]}, which Paimon cannot use).
 * </ul>
 *
 * <p>Each call returns what it took (already given back) so that a benchmark can consume it and
 * the JIT cannot drop the work. <b>Thread-safety:</b> the heap, Arrow and Flink calls are
 * thread-safe; the Spark one is, through the task memory manager's lock. <b>May throw:</b> {@link
 * IllegalStateException} when the engine refuses the page (the engine is too small: a set-up
 * error, not a result).
 */
interface EnginePage {

    /** Takes one page from the engine and gives it back; returns the page. */
    Object takeAndGive();

    /** The engine call of provider {@code provider}, on the engine objects of {@code environment}. */
    static EnginePage of(String provider, EngineEnvironment environment, int pageSize) {
        return switch (provider) {
            case "heap" -> () -> new byte[pageSize];
            case "offheap" -> new Arrow(environment.require(BufferAllocator.class, provider), pageSize);
            case "flink" -> new Flink(environment.require(MemoryManager.class, provider));
            case "spark" -> new Spark(environment.require(TaskMemoryManager.class, provider), pageSize);
            default -> throw new IllegalArgumentException(
                    "no engine call known for provider '" + provider + "'; known: " + PagePair.PROVIDERS);
        };
    }

    /** A direct buffer from the engine's Arrow allocator. */
    record Arrow(BufferAllocator allocator, int pageSize) implements EnginePage {
        @Override
        public Object takeAndGive() {
            ArrowBuf buf = allocator.buffer(pageSize);
            buf.close();
            return buf;
        }
    }

    /** One page of Flink managed memory under an owner of its own. */
    final class Flink implements EnginePage {
        private final MemoryManager manager;
        private final Object owner = new Object();

        Flink(MemoryManager manager) {
            this.manager = manager;
        }

        @Override
        public Object takeAndGive() {
            List<MemorySegment> pages = new ArrayList<>(1);
            try {
                manager.allocatePages(owner, pages, 1);
            } catch (MemoryAllocationException e) {
                throw new IllegalStateException("the Flink memory manager refused one page", e);
            }
            manager.release(pages);
            return pages;
        }
    }

    /** Spark execution memory for one {@code byte[]} page, acquired and freed by a task consumer. */
    final class Spark extends MemoryConsumer implements EnginePage {
        private final int pageSize;

        Spark(TaskMemoryManager tmm, int pageSize) {
            super(tmm, pageSize, MemoryMode.ON_HEAP);
            this.pageSize = pageSize;
        }

        @Override
        public Object takeAndGive() {
            long granted = acquireMemory(pageSize);
            if (granted < pageSize) {
                freeMemory(granted);
                throw new IllegalStateException("Spark granted " + granted + " of " + pageSize + " bytes");
            }
            byte[] page = new byte[pageSize];
            freeMemory(granted);
            return page;
        }

        /** Holds nothing between calls, so there is nothing to spill. */
        @Override
        public long spill(long size, MemoryConsumer trigger) {
            return 0;
        }
    }
}
