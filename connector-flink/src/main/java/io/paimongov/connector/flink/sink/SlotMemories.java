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
 * <p>Held weakly: a slot's entry goes when its memory manager is collected (the slot was freed). A
 * job's classes, this one included, are loaded per job, so two jobs never share an entry.
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
