package io.paimongov.spi;

import java.util.Collection;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * The engine's memory manager as the writer sees it: fixed-size pages for Paimon's write buffer
 * and byte reservations for memory the writer uses outside pages (format encoders, spill I/O
 * buffers, compaction). Both count against one engine budget of {@link #capacityBytes()}.
 * Contract: docs/spi.md, clauses ALLOC.1-ALLOC.16 (checked by the TCK's MEM-* rules). Sizes are
 * {@code long} over their whole range (ALLOC.12).
 *
 * <p><b>Thread-safety:</b> every method, from any thread, concurrently (ALLOC.6, ALLOC.14). <b>Who calls:</b>
 * the runtime only, under no lock of its own but the write's call lock (LOCK.1, LOCK.2). <b>May
 * throw:</b> {@link #allocate} only {@link ResourceExhaustedException} for "no memory" (ALLOC.3);
 * the releases never (ALLOC.7). <b>Re-entrancy:</b> no call back into the write (LOCK.3).
 */
public interface SegmentAllocator {

    /**
     * Page size in bytes: a power of two, constant; {@code options.pageSize()} unless {@link
     * #pageSizeFixedByEngine()} (ALLOC.1).
     */
    int pageSize();

    /**
     * Whether the engine fixes the page size whatever {@code governance.memory.page-size} says
     * (Flink's memory manager: {@code taskmanager.memory.segment-size}); then {@link #pageSize()} is
     * the engine's and every page has it (ALLOC.1). The default is false: the page size is the
     * option's.
     */
    default boolean pageSizeFixedByEngine() {
        return false;
    }

    /** The engine budget this allocator hands out, in bytes (ALLOC.1). */
    long capacityBytes();

    /** Bytes currently taken from the engine: live pages plus reservations (ALLOC.2). */
    long usedBytes();

    /**
     * Appends {@code pages} pages to {@code target}, all or nothing (ALLOC.3, ALLOC.4), each charged
     * to the engine while it is held (ALLOC.15).
     *
     * @throws ResourceExhaustedException when the engine cannot give all of them
     */
    void allocate(List<MemorySegment> target, int pages);

    /**
     * Gives pages that {@link #allocate} handed out back to the engine; never throws (ALLOC.7), also
     * on an interrupted thread (ALLOC.13). A page that is not live here (released already, another
     * allocator's) changes nothing (ALLOC.10).
     */
    void release(Collection<MemorySegment> pages);

    /**
     * Reserves {@code bytes} of non-page memory, all or nothing: false changes nothing (ALLOC.5), for
     * any size up to {@link Long#MAX_VALUE} (ALLOC.12).
     */
    boolean tryReserve(long bytes);

    /**
     * Gives bytes that {@link #tryReserve} reserved back to the engine; never throws (ALLOC.7), also
     * on an interrupted thread (ALLOC.13). More than is reserved gives back what is reserved; after
     * close it does nothing (ALLOC.10).
     */
    void release(long bytes);

    /**
     * {@link #tryReserve(long)} for memory of one kind (ALLOC.16): the runtime calls this one, naming
     * what the bytes are for. An allocator whose engine tracks memory by consumer overrides both this
     * and {@link #release(long, ConsumerKind)}; the default forgets the kind.
     */
    default boolean tryReserve(long bytes, ConsumerKind consumer) {
        return tryReserve(bytes);
    }

    /**
     * {@link #release(long)} of bytes reserved for {@code consumer} (ALLOC.16); the runtime releases
     * bytes under the kind it reserved them under. The default forgets the kind.
     */
    default void release(long bytes, ConsumerKind consumer) {
        release(bytes);
    }

    /** Receives, once, how to ask the write for memory back (ALLOC.9); the default ignores it. */
    default void bindRelief(MemoryRelief relief) {}

    /**
     * The class messages name for this allocator ({@link AllocatorContractException}): its own by
     * default. An allocator that only forwards every call to another, as the conformance kit's
     * observer does, returns the other's, so that an error names the class that broke the contract
     * rather than the wrapper around it. Any thread; does not throw.
     */
    default Class<?> implementation() {
        return getClass();
    }

    /**
     * What a write's memory is for, as the runtime tells the allocator with every reservation and its
     * release ({@link SegmentAllocator#tryReserve(long, ConsumerKind)}, clause ALLOC.16 of
     * docs/spi.md), so that an engine can charge it to a tracker of its own: a native host's query
     * tracker (docs/native.md), a per-consumer gauge. Pages ({@link SegmentAllocator#allocate}) are
     * always {@link #WRITE_BUFFER}.
     *
     * <p>Each kind has a stable {@link #code()}, the number the C ABI passes ({@code pg_consumer} in
     * {@code paimon_governance.h}); codes are never reused. A later release may add kinds: an engine
     * must treat a kind it does not know as {@link #OTHER}. Immutable; thread-safe.
     */
    enum ConsumerKind {
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
        COMMIT(7, "commit messages"),
        /**
         * Governed reads: open format readers (row groups, decompression, decoded batches), merge
         * state and the channels of spilled intermediate runs, and manifest planning.
         */
        READ(8, "read"),
        /** Rows a governed read copied out and handed to the engine, held until the engine lets go of them. */
        READ_OUTPUT(9, "read output");

        private final int code;
        private final String label;

        ConsumerKind(int code, String label) {
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
        public static ConsumerKind ofCode(int code) {
            for (ConsumerKind c : values()) {
                if (c.code == code) {
                    return c;
                }
            }
            return OTHER;
        }
    }

    /**
     * How an engine asks a write to give memory back: the runtime hands one to the allocator ({@link
     * SegmentAllocator#bindRelief}, clause ALLOC.9 of docs/spi.md) when the write opens. What it does
     * is clause LOCK.4: cached pages always, a flush or spill only when the write's call lock is free
     * or held by the caller.
     *
     * <p><b>Thread-safety:</b> any thread, also re-entrantly from inside the allocator (LOCK.4).
     * <b>May throw:</b> what a flush throws; treat it as nothing freed (LOCK.4).
     */
    @FunctionalInterface
    interface MemoryRelief {

        /**
         * Tries to give at least {@code bytes} back to the engine.
         *
         * @return the bytes given back to the engine (released through the allocator), maybe 0
         */
        long relieve(long bytes);

        /** A relief that frees nothing. */
        MemoryRelief NONE = bytes -> 0;
    }

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
    final class AllocatorContractException extends IllegalStateException {

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
}
