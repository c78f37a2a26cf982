package io.paimongov.runtime.memory;

import io.paimongov.runtime.internal.memory.MemoryArbiter;

/**
 * One engine's memory shared by the governed writes that join it, by a stated policy instead of
 * first come: each write is guaranteed its share, may borrow what the others leave unused, and a
 * write that needs its share back makes the borrowers give it back (docs/memory-sharing.md). The
 * engine integration makes one per engine memory (the Flink connector: one per slot) and puts it in
 * each write's {@link io.paimongov.spi.EngineEnvironment}; a write joins when it opens with {@code
 * governance.memory.sharing=fair} and leaves when it closes.
 *
 * <p>What an engine integration holds: {@link #of} and four accessors, {@link #name()}, {@link
 * #limitBytes()}, {@link #poolBytes()} and {@link #memberCount()}, inherited from the runtime's
 * {@link MemoryArbiter}, which holds the accounting (who lends to whom, who owes, who waits) and
 * keeps everything else package-private to the runtime's internal memory package. This class is
 * that accounting's public face: the runtime takes it out of the environment as the arbiter, so the
 * handle needs no method that hands its accounting over, and the internal package, which never
 * imports this one, has no cycle with it.
 *
 * <p><b>Thread-safety:</b> thread-safe. <b>Who calls:</b> {@link #of} and the accessors, the
 * engine integration, on any thread; the writes that join it, through the runtime (see {@link
 * MemoryArbiter} for the threads and the lock).
 */
public final class SharedMemory extends MemoryArbiter {

    private SharedMemory(String name, long limit) {
        super(name, limit);
    }

    /**
     * A pool named {@code name} (shown in errors) over engine memory of {@code limitBytes}: the most
     * its members' shares may add up to, and what each member's provider is asked for as its budget
     * (so that a member's allocator lets it hold what it borrows).
     *
     * @throws IllegalArgumentException when {@code limitBytes} is not positive
     */
    public static SharedMemory of(String name, long limitBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("the limit of shared memory '" + name + "' must be positive: " + limitBytes);
        }
        return new SharedMemory(name, limitBytes);
    }

    @Override
    public String toString() {
        return "SharedMemory[" + name() + ", pool " + poolBytes() + " of " + limitBytes() + " bytes]";
    }
}
