package io.paimongov.runtime.internal.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.apache.paimon.memory.MemorySegment;

/**
 * The native address of an off-heap Paimon segment, read from the segment's own field: Paimon
 * keeps it in a private {@code address} and has no getter. Two segments over one native buffer
 * are distinct objects with one address; the pool compares addresses to catch them.
 *
 * <p>Stateless apart from one handle made when the class loads; thread-safe. Where Paimon's field
 * cannot be reached (a module layer that does not open it), {@link #available()} is false and the
 * pool checks off-heap pages by identity only.
 */
final class NativeAddress {

    private static final VarHandle ADDRESS = find();

    private NativeAddress() {}

    static boolean available() {
        return ADDRESS != null;
    }

    /** The address of {@code segment}'s first byte; only for an off-heap segment, when {@link #available()}. */
    static long of(MemorySegment segment) {
        return (long) ADDRESS.get(segment);
    }

    private static VarHandle find() {
        try {
            return MethodHandles.privateLookupIn(MemorySegment.class, MethodHandles.lookup())
                    .findVarHandle(MemorySegment.class, "address", long.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
