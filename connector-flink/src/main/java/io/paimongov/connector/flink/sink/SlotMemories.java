package io.paimongov.connector.flink.sink;

import io.paimongov.runtime.memory.SharedMemory;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.flink.runtime.memory.MemoryManager;

/**
 * The shared memory of each slot: one {@link SharedMemory} per slot's {@link MemoryManager}
 * instance, which the governed writers of the slot join (docs/memory-sharing.md). Its limit is the
 * slot's managed memory; its pool is only the governed writers' shares, so the other operators of
 * the slot keep their fractions.
 *
 * <p>Held weakly: a slot's entry goes when its memory manager is collected (the slot was freed).
 * Loaded per job (the connector in the job's jar) each job has its own map; on the system class
 * path (Flink's {@code lib/}, the CLI) one map serves every job, which is right too: a memory
 * manager belongs to one slot allocation, and a job that fails over into the same allocation
 * finds its writers' old members gone (each leaves when its write closes).
 *
 * <p><b>Thread-safety:</b> thread-safe; the writer operators of a slot open on their own task
 * threads at once.
 */
final class SlotMemories {

    private static final Map<MemoryManager, SharedMemory> SLOTS = new WeakHashMap<>();

    private SlotMemories() {}

    /** The shared memory of the slot whose memory manager is {@code manager}, made on first use. */
    static synchronized SharedMemory of(MemoryManager manager) {
        return SLOTS.computeIfAbsent(manager, m -> SharedMemory.of(
                "flink slot memory@" + Integer.toHexString(System.identityHashCode(m)), m.getMemorySize()));
    }
}
