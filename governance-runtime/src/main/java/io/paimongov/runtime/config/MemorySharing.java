package io.paimongov.runtime.config;

/**
 * {@code governance.memory.sharing}: how a write uses the shared memory its engine integration
 * offers it (an {@code io.paimongov.runtime.memory.SharedMemory} in its {@code EngineEnvironment};
 * the Flink connector offers one per slot). Without one, both values mean the same: the write's
 * budget is its own and fixed.
 */
public enum MemorySharing {
    /**
     * The write joins the shared memory with its budget as its share: guaranteed, it may borrow what
     * the other members leave unused and gets its share back from borrowers when it needs it.
     */
    FAIR,
    /** The write keeps its own fixed budget, as outside a shared memory. */
    NONE
}
