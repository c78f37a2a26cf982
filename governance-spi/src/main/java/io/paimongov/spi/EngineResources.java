package io.paimongov.spi;

/**
 * The engine's resources for one logical write, one accessor per concern. Returned by {@link
 * GovernanceProvider#open}; the runtime owns it and closes it exactly once, after the Paimon write
 * is closed and every page and reservation has been given back.
 *
 * <p><b>Thread-safety:</b> every accessor and every returned object must be thread-safe; the
 * accessors return the same object on every call. <b>Close:</b> {@link #close()} must be
 * idempotent and must not throw for resources that were all returned; it may throw {@link
 * IllegalStateException} when the engine reports memory still held (a leak), after releasing
 * what it can.
 */
public interface EngineResources extends AutoCloseable {

    /** Pages and byte reservations against the engine's memory budget. */
    SegmentAllocator memory();

    /** Where spill files may go and how many bytes they may take. */
    SpillLocations spill();

    /** The engine's cancel state for this write. */
    CancellationSignal cancellation();

    /** Where the write's metrics go. */
    MetricsReporter metrics();

    /** The threads the engine allows for compaction. */
    CompactionThreads compaction();

    @Override
    void close();
}
