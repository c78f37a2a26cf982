package io.paimongov.runtime.write;

import io.paimongov.spi.ResourceExhaustedException;
import org.apache.paimon.data.BinaryRow;

/**
 * Decides, row by row, where a row of a (partition, bucket) writer goes: to its own open writer
 * ({@link Route#DIRECT}), admitted by memory first where it has none ({@link WriterAdmission}), or,
 * when no writer of its own can be admitted, to the write's {@link SharedSort} ({@link
 * Route#SORTED}), where the writer's rows then go until the sort is drained. With the shared sort
 * switched off, a writer that cannot be admitted under the cap is admitted past it while it fits, as
 * Paimon's own writers share a pool.
 *
 * <p><b>Thread-safety:</b> none; the writing thread inside a write call.
 */
final class WriterRouting {

    /** Where a row goes. */
    enum Route {
        /** To its own open writer. */
        DIRECT,
        /** To the write's shared sort. */
        SORTED
    }

    private final OpenWriters open;
    private final WriterAdmission admission;
    private final boolean sharedSort;
    /** Writers whose rows go to the shared sort until the next prepareCommit (the value is the key). */
    private final WriterTable<WriterKey> sorted = new WriterTable<>();

    WriterRouting(OpenWriters open, WriterAdmission admission, boolean sharedSort) {
        this.open = open;
        this.admission = admission;
        this.sharedSort = sharedSort;
    }

    /**
     * Where the next row of ({@code partition}, {@code bucket}), {@code rowBytes} long, goes; a
     * writer admitted here is open in Paimon's write when this returns {@link Route#DIRECT} for it
     * (reopened from its early-close state) or is created by Paimon at the row's write.
     *
     * @throws ResourceExhaustedException when the writer can get neither a writer of its own nor
     *     room in the shared sort
     */
    Route route(BinaryRow partition, int bucket, long rowBytes) throws Exception {
        int hash = WriterKey.hash(partition, bucket);
        if (open.take(partition, bucket, hash, rowBytes)) {
            return Route.DIRECT;
        }
        if (sorted.contains(partition, bucket, hash)) {
            return Route.SORTED;
        }
        WriterKey key = new WriterKey(partition.copy(), bucket);
        if (admission.admit(key)) {
            open.takeFirst(key, rowBytes);
            return Route.DIRECT;
        }
        if (!sharedSort) {
            // No sort to fall back on: past the cap while the writer fits, as Paimon's own writers share a pool.
            admission.admitPastCap(key, rowBytes);
            return Route.DIRECT;
        }
        sorted.put(key, key);
        return Route.SORTED;
    }

    /**
     * Admits the writer {@link #route} sent to the shared sort when the sort cannot open (a budget too
     * small for its spill channels next to the open writers): past {@link WriterAdmission#maxOpen}
     * while its reservation and first pages fit (closing writers that may be closed), the open
     * writers sharing the pages as Paimon's own writers do; else the write fails with the numbers.
     * Writers that took less than the early-close minimum are not closed here: closing them row by
     * row would roll a file per row and never finish.
     */
    void admitClosingAny(BinaryRow partition, int bucket, long rowBytes) throws Exception {
        WriterKey key = new WriterKey(partition.copy(), bucket);
        sorted.remove(key);
        admission.admitPastCap(key, rowBytes);
    }

    /** The shared sort's writers start afresh after a drain: later rows may get writers of their own. */
    void sortDrained() {
        sorted.clear();
    }
}
