package io.paimongov.runtime.internal.memory;

import io.paimongov.allocator.support.PagedAllocator;
import io.paimongov.spi.SegmentAllocator;

/** Test allocators for the runtime's unit tests in other packages. */
public final class TestAllocators {

    private TestAllocators() {}

    /** A plain bounded allocator of {@code capacity} bytes in pages of {@code pageSize}. */
    public static SegmentAllocator bounded(int pageSize, long capacity) {
        return new BoundedTestAllocator(pageSize, capacity);
    }

    /** The same, as the {@link PagedAllocator} a provider's {@code PagedResources} takes. */
    public static PagedAllocator<?> paged(int pageSize, long capacity) {
        return new BoundedTestAllocator(pageSize, capacity);
    }
}
