package io.paimongov.spi;

/**
 * What a write's memory is for, as the runtime tells the allocator with every reservation and its
 * release ({@link SegmentAllocator#tryReserve(long, MemoryConsumer)}, clause ALLOC.16 of
 * docs/spi.md), so that an engine can charge it to a tracker of its own: a native host's query
 * tracker (docs/native.md), a per-consumer gauge. Pages ({@link SegmentAllocator#allocate}) are
 * always {@link #WRITE_BUFFER}.
 *
 * <p>Each kind has a stable {@link #code()}, the number the C ABI passes ({@code pg_consumer} in
 * {@code paimon_governance.h}); codes are never reused. A later release may add kinds: an engine
 * must treat a kind it does not know as {@link #OTHER}. Immutable; thread-safe.
 */
public enum MemoryConsumer {
    /** Anything not listed below, and reservations an engine makes through the runtime's API. */
    OTHER(0, "other"),
    /** Write-buffer pages: the rows Paimon sorts or buffers before a flush. */
    WRITE_BUFFER(1, "write buffer"),
    /** Open file writers: format encoders, compression and output buffers of data files being written. */
    WRITER(2, "writer"),
    /** Spill I/O: buffers and channels of sort-buffer spill runs and their merges. */
    SPILL_IO(3, "spill I/O"),
    /** Compaction tasks: the readers, merge state and writer of one compaction. */
    COMPACTION(4, "compaction"),
    /** Bucket and key indexes: dynamic-bucket assigners, cross-partition key index, hash indexes. */
    INDEX(5, "index"),
    /** Lookup caches of lookup changelog producers and deletion vectors. */
    LOOKUP(6, "lookup"),
    /** Commit messages kept for writers that were closed before the commit. */
    COMMIT(7, "commit messages");

    private final int code;
    private final String label;

    MemoryConsumer(int code, String label) {
        this.code = code;
        this.label = label;
    }

    /** The stable number of this kind in the C ABI ({@code PG_CONSUMER_*}). */
    public int code() {
        return code;
    }

    /** A short lower-case name for messages and metrics, such as {@code "spill I/O"}. */
    public String label() {
        return label;
    }

    /** The kind whose {@link #code()} is {@code code}; {@link #OTHER} for a code no kind has. */
    public static MemoryConsumer ofCode(int code) {
        for (MemoryConsumer c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return OTHER;
    }
}
