package io.paimongov.reliability;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.runtime.config.GovernanceOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How one fault is set up for a write, how it strikes, what shows that it did, and how it is taken
 * away again. Every fault but the allocator's throw uses the real thing: the engine's memory taken
 * by another consumer, the spill scope removed from the disk, Paimon's FileIO failing, a real
 * interrupt, the engine's own cancel.
 *
 * <p>Not thread-safe: made and used by one cell.
 */
final class FaultSetup {

    private final Fault fault;
    private final World world;
    private final int atRow;
    private FileFaults.Plan files = FileFaults.Plan.NONE;
    private EngineResources hog;
    private long hogBytes;
    private Path removedScope;

    private FaultSetup(Fault fault, World world, int atRow) {
        this.fault = fault;
        this.world = world;
        this.atRow = atRow;
    }

    /** Arms what must be armed before the write opens. */
    static FaultSetup of(Fault fault, World world, int atRow) {
        FaultSetup s = new FaultSetup(fault, world, atRow);
        switch (fault) {
            case ALLOCATOR_THROWS -> world.provider.failAllocation(6);
            case DATA_FILE_IO_ERROR -> s.files = FileFaults.failDataFile(2, 1024);
            case COMMIT_FAILS -> s.files = FileFaults.failSnapshotWrites(Integer.MAX_VALUE, false);
            case COMMIT_LANDS_THEN_THROWS -> s.files = FileFaults.failSnapshotWrites(2, true);
            default -> {}
        }
        return s;
    }

    /**
     * Rows of the faulty write (and its retry) as a multiple of the suite's rows: the spill budget
     * fault needs more than 1m of spill on disk at once, which takes twice the rows.
     */
    static int rowsFactor(Fault fault) {
        return fault == Fault.SPILL_BUDGET_EXCEEDED ? 2 : 1;
    }

    /** The faulty write's options. */
    GovernanceOptions options() {
        return fault == Fault.SPILL_BUDGET_EXCEEDED
                ? world.options(GovernanceOptions.SPILL_MAX_BYTES, "1m")
                : world.options();
    }

    /** What happens between two rows, or null when the fault is armed from the start. */
    Attempt.MidWrite midWrite() {
        return switch (fault) {
            case ALLOCATOR_GRANTS_NOTHING -> (writer, context) -> takeAllEngineMemory();
            case SPILL_IO_ERROR -> (writer, context) -> {
                removedScope = context.spillScopeDir();
                Cell.delete(removedScope);
                // A file where the scope was: a scope not made yet (no spill so far) cannot be made
                // there either. The write's cleanup deletes it with the scope, disarm() otherwise.
                Files.writeString(removedScope, "in the way of the spill scope");
            };
            case THREAD_INTERRUPTED -> (writer, context) -> writer.interrupt();
            case ENGINE_CANCELS -> (writer, context) -> {
                if (!world.engine().cancel("reliability: the engine cancels at row " + atRow)) {
                    throw new IllegalStateException(world.allocator.id + "'s standalone engine cannot cancel");
                }
            };
            default -> null;
        };
    }

    /**
     * Another consumer of the same engine (a second set of engine resources from the same
     * provider on the same engine) takes every byte the engine still has, in halving chunks.
     */
    private void takeAllEngineMemory() {
        hog = world.provider.real().open(world.options().providerOptions(), world.engine().environment());
        for (long chunk = world.settings.budgetBytes(); chunk >= 1024; chunk /= 2) {
            while (hog.memory().tryReserve(chunk)) {
                hogBytes += chunk;
            }
        }
    }

    /** Whether the fault struck and reached the write. */
    boolean struck(Attempt a) {
        return switch (fault) {
            case ALLOCATOR_THROWS -> world.provider.thrown() == 1 && Errors.mentions(a.error, "injected: the allocator failed");
            case ALLOCATOR_GRANTS_NOTHING -> a.faultApplied && hogBytes > 0;
            case SPILL_BUDGET_EXCEEDED -> isSpillRefusal(a.error);
            case SPILL_IO_ERROR -> a.faultApplied && Errors.has(a.error, IOException.class);
            case DATA_FILE_IO_ERROR -> files.fired() == 1 && Errors.mentions(a.error, "injected: data file");
            case COMMIT_FAILS -> files.fired() == 3 && Errors.mentions(a.error, "injected: writing");
            case COMMIT_LANDS_THEN_THROWS -> files.fired() == 3;
            case THREAD_INTERRUPTED, ENGINE_CANCELS -> a.faultApplied;
            case PROCESS_KILLED -> throw new IllegalArgumentException("the kill runs in a child JVM");
        };
    }

    /** What shows that the fault struck, for the report. */
    String evidence(Attempt a) {
        return switch (fault) {
            case ALLOCATOR_THROWS -> "thrown " + world.provider.thrown() + " time(s) at allocation 6 of " + world.provider.allocations();
            case ALLOCATOR_GRANTS_NOTHING -> "another consumer took " + hogBytes + " bytes at row " + atRow
                    + "; the write was refused a page " + (a.finalMetrics() == null ? "?" : a.finalMetrics().bufferFullCount()) + " times";
            case SPILL_BUDGET_EXCEEDED -> a.finalMetrics() == null ? "no context" : "spilled " + a.finalMetrics().spillBytes() + " bytes, refused: " + isSpillRefusal(a.error);
            case SPILL_IO_ERROR -> "scope removed at row " + atRow + ": " + removedScope + "; I/O error reached the write: " + Errors.has(a.error, IOException.class);
            case DATA_FILE_IO_ERROR, COMMIT_FAILS, COMMIT_LANDS_THEN_THROWS -> "file system errors injected: " + files.fired();
            case THREAD_INTERRUPTED -> "writing thread interrupted at row " + atRow + ": " + a.faultApplied;
            case ENGINE_CANCELS -> "engine cancelled at row " + atRow + ": " + a.faultApplied;
            case PROCESS_KILLED -> "";
        };
    }

    /** Takes the fault away: the file system heals, the allocator stops throwing, the other consumer lets go. */
    void disarm() throws IOException {
        FileFaults.disarm();
        if (removedScope != null) {
            Files.deleteIfExists(removedScope);
        }
        world.provider.stopFailing();
        if (hog != null) {
            hog.memory().release(hogBytes);
            hog.close();
            hog = null;
        }
    }

    private static boolean isSpillRefusal(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ResourceExhaustedException e && e.resource() == ResourceExhaustedException.Resource.SPILL_DISK) {
                return true;
            }
        }
        return false;
    }
}
