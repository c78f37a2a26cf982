package io.paimongov.allocator.support;

/**
 * What {@link PagedAllocator#close()} found still held, as {@link PagedAllocator#closeEngine}
 * receives it: {@code heldBytes} in all, of them {@code pages} pages and {@code reservedBytes} of
 * reservations; all 0 when nothing leaked. Immutable.
 *
 * @param allocator the allocator's name, as its errors give it ({@code "heap"})
 */
public record LeakReport(String allocator, long heldBytes, long pages, long reservedBytes) {

    /** Whether anything was still held. */
    public boolean found() {
        return heldBytes != 0;
    }

    /** {@code <allocator> allocator closed with <n> bytes still held (<p> pages)}: the default message of a leak. */
    public String message() {
        return allocator + " allocator closed with " + heldBytes + " bytes still held (" + pages + " pages)";
    }
}
