package io.paimongov.allocator.support;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import org.apache.paimon.memory.MemorySegment;

/**
 * Paimon segments over an engine's native pages, for {@link EnginePagedAllocator#segment}
 * implementations. Stateless apart from one method handle made at first use; thread-safe.
 */
public final class OffHeapSegments {

    private OffHeapSegments() {}

    /**
     * A Paimon segment over {@code buffer}, a direct buffer of native memory at {@code address}: what
     * {@link MemorySegment#wrapOffHeapMemory} makes, without its per-call checks, whose failure
     * message it builds as a string on every call (about 500 heap bytes a page, most of what the
     * off-heap and Flink providers allocated beyond the engine's own call). The caller vouches for the address, which
     * comes from the engine's own page. Falls back to {@code wrapOffHeapMemory} where Paimon's
     * constructor cannot be reached.
     */
    public static MemorySegment wrap(ByteBuffer buffer, long address) {
        MethodHandle constructor = SegmentConstructor.HANDLE;
        if (constructor == null) {
            return MemorySegment.wrapOffHeapMemory(buffer);
        }
        try {
            return (MemorySegment) constructor.invokeExact((byte[]) null, buffer, address, buffer.capacity());
        } catch (Throwable e) {
            throw new IllegalStateException("wrapping " + buffer.capacity() + " bytes of native memory failed", e);
        }
    }

    /** Paimon's private {@code MemorySegment(byte[], ByteBuffer, long, int)}, or null when out of reach. */
    private static final class SegmentConstructor {
        static final MethodHandle HANDLE = find();

        private static MethodHandle find() {
            try {
                MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(MemorySegment.class, MethodHandles.lookup());
                return lookup.findConstructor(
                                MemorySegment.class,
                                MethodType.methodType(void.class, byte[].class, ByteBuffer.class, long.class, int.class))
                        .asType(MethodType.methodType(MemorySegment.class, byte[].class, ByteBuffer.class, long.class, int.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    }
}
