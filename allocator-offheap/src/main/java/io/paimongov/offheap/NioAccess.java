package io.paimongov.offheap;

import org.apache.arrow.memory.ArrowBuf;

/**
 * The one JVM flag the provider needs, checked before anything is acquired. {@link
 * ArrowBuf#nioBuffer(long, int)} builds a {@code DirectByteBuffer} over the buffer's address through
 * its private constructor, which Java 17 allows only when {@code java.base} opens {@code java.nio}
 * to Arrow. Without it Arrow throws {@link UnsupportedOperationException} at the first page, deep
 * inside a write; checking the module graph at open says what to do instead.
 *
 * <p>Stateless; thread-safe.
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
}
