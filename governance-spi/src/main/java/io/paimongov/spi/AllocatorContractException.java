package io.paimongov.spi;

/**
 * An allocator broke the contract in a way the runtime sees where pages cross into the write: a
 * page whose size is not {@link SegmentAllocator#pageSize()} (ALLOC.4), a page handed out while it
 * is still live in the same write, or whose memory another live page of the write already has
 * (ALLOC.4), more or fewer pages than asked for (ALLOC.3), or a {@link SegmentAllocator#usedBytes()}
 * below zero (ALLOC.2). Thrown by the runtime, never by an allocator: the write that meets it fails
 * and commits nothing, where going on would write one page's rows into another's. The message
 * names the allocator's class ({@link SegmentAllocator#implementation()}: the vendor's, also when a
 * wrapper such as the conformance kit's stands between), the clause and what was seen.
 */
public final class AllocatorContractException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String clause;

    /**
     * @param allocator the allocator that broke the contract
     * @param clause the clause of docs/spi.md it broke, such as {@code ALLOC.4}
     * @param what what the runtime saw
     */
    public AllocatorContractException(SegmentAllocator allocator, String clause, String what) {
        super("the allocator " + allocator.implementation().getName() + " broke " + clause + " of docs/spi.md: " + what);
        this.clause = clause;
    }

    /** The clause of docs/spi.md that was broken, such as {@code ALLOC.4}. */
    public String clause() {
        return clause;
    }
}
