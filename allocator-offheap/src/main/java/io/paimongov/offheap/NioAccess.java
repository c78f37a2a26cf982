package io.paimongov.offheap;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The one JVM flag the provider needs, checked before anything is acquired. {@link
 * ArrowBuf#nioBuffer(long, int)} builds a {@code DirectByteBuffer} over the buffer's address through
 * its private constructor, which Java 17 allows only when {@code java.base} opens {@code java.nio}
 * to Arrow. Without it Arrow throws {@link UnsupportedOperationException} at the first page, deep
 * inside a write; checking the module graph at open says what to do instead.
 *
 * <p>{@link #directBuffer} builds the same buffer for a page, through a method handle on that
 * constructor made once: Arrow calls it through {@code Constructor.newInstance} on every page, which
 * boxes both arguments and costs more than the rest of a page's bookkeeping.
 *
 * <p>Stateless apart from the handle; thread-safe.
 */
final class NioAccess {

    private NioAccess() {}

    /**
     * @throws IllegalStateException naming the {@code --add-opens} flag when {@code java.nio} is not
     *     open to Arrow's module
     */
    static void requireOpen() {
        Module arrow = ArrowBuf.class.getModule();
        if (Object.class.getModule().isOpen("java.nio", arrow)) {
            return;
        }
        String target = arrow.isNamed() ? arrow.getName() : "ALL-UNNAMED";
        throw new IllegalStateException(
                "provider '" + OffheapGovernanceProvider.NAME + "' needs java.nio opened to Arrow: start the JVM with"
                        + " --add-opens=java.base/java.nio=" + target
                        + " (Arrow's ArrowBuf.nioBuffer() wraps pages zero-copy through a private"
                        + " DirectByteBuffer constructor; see docs/allocators/offheap.md)");
    }

    /**
     * A {@code DirectByteBuffer} of {@code capacity} bytes over native memory at {@code address},
     * as {@link ArrowBuf#nioBuffer(long, int)} makes it; call only after {@link #requireOpen()}.
     */
    static ByteBuffer directBuffer(long address, int capacity) {
        MethodHandle constructor = DirectConstructor.HANDLE;
        if (constructor == null) {
            return MemoryUtil.directBuffer(address, capacity);
        }
        try {
            return (ByteBuffer) constructor.invokeExact(address, capacity);
        } catch (Throwable e) {
            throw new IllegalStateException("making a direct buffer over " + capacity + " bytes failed", e);
        }
    }

    /**
     * The constructor {@code DirectByteBuffer(long, int)} (Java 17; {@code (long, long)} in later
     * releases), or null when this module may not reach it; then Arrow's own path is taken.
     */
    private static final class DirectConstructor {
        static final MethodHandle HANDLE = find();

        private static MethodHandle find() {
            try {
                Class<?> direct = Class.forName("java.nio.DirectByteBuffer");
                MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(direct, MethodHandles.lookup());
                MethodType wanted = MethodType.methodType(ByteBuffer.class, long.class, int.class);
                for (Class<?> capacity : new Class<?>[] {int.class, long.class}) {
                    try {
                        return lookup.findConstructor(direct, MethodType.methodType(void.class, long.class, capacity))
                                .asType(wanted);
                    } catch (NoSuchMethodException e) {
                        // the other release's signature comes next
                    }
                }
                return null;
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    }
}
