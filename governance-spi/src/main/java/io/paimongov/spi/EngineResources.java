package io.paimongov.spi;

/**
 * The engine's resources for one logical write, one accessor per concern. Contract: docs/spi.md,
 * clauses RES.1-RES.5.
 *
 * <p><b>Thread-safety:</b> thread-safe, each accessor returns the same object every time (RES.1).
 * <b>Who calls:</b> the runtime, which owns it and closes it once (RES.2). <b>May throw:</b>
 * {@link #close()}, {@link IllegalStateException} on a leak, after releasing what it can (RES.4);
 * closing twice is harmless (RES.3). Whatever the write registered with the engine's objects is
 * gone once it closed (RES.5).
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
