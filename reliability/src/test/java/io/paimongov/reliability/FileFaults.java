package io.paimongov.reliability;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What {@link FaultyFileIO} breaks, for every table on the {@code faulty://} scheme in this JVM:
 * nothing ({@link #disarm()}), the Nth data file created after arming (at creation or after some
 * bytes), or the table's snapshot writes (before the snapshot lands, or just after it landed).
 *
 * <p>Paimon instantiates the file system itself (through {@link FaultyFileIOLoader}), so the plan
 * is process-wide; the matrix runs one cell at a time. <b>Thread-safety:</b> thread-safe; Paimon
 * writes data files from the writing thread and compaction threads.
 */
final class FileFaults {

    private static final AtomicReference<Plan> PLAN = new AtomicReference<>(Plan.NONE);

    private FileFaults() {}

    /**
     * The Nth data file ({@code data-*}, counted from now) fails: at creation when {@code afterBytes}
     * is 0, else on the first write that would take it past {@code afterBytes}.
     */
    static Plan failDataFile(int nth, long afterBytes) {
        return arm(new Plan(nth, afterBytes, 0, false));
    }

    /**
     * The next {@code before} snapshot writes fail before anything is written; with {@code
     * thenLand}, the write after them writes the snapshot (it lands) and then fails.
     */
    static Plan failSnapshotWrites(int before, boolean thenLand) {
        return arm(new Plan(0, 0, before, thenLand));
    }

    /** Nothing fails from now on. */
    static void disarm() {
        PLAN.set(Plan.NONE);
    }

    static Plan current() {
        return PLAN.get();
    }

    private static Plan arm(Plan plan) {
        PLAN.set(plan);
        return plan;
    }

    /** One armed fault and how often it fired. */
    static final class Plan {
        static final Plan NONE = new Plan(0, 0, 0, false);

        private final int dataFile;
        private final long afterBytes;
        private final int snapshotFailures;
        private final boolean thenLand;
        private final AtomicInteger dataFilesSeen = new AtomicInteger();
        private final AtomicInteger snapshotWritesSeen = new AtomicInteger();
        private final AtomicInteger fired = new AtomicInteger();

        private Plan(int dataFile, long afterBytes, int snapshotFailures, boolean thenLand) {
            this.dataFile = dataFile;
            this.afterBytes = afterBytes;
            this.snapshotFailures = snapshotFailures;
            this.thenLand = thenLand;
        }

        /** How many I/O errors this plan raised. */
        int fired() {
            return fired.get();
        }

        /** Bytes after which a new data file fails, or -1 when this one is left alone. */
        long dataFileLimit() {
            if (dataFile == 0) {
                return -1;
            }
            return dataFilesSeen.incrementAndGet() == dataFile ? afterBytes : -1;
        }

        IOException dataFileError(String path, long written) {
            fired.incrementAndGet();
            return new IOException("injected: data file " + path + " failed after " + written + " bytes");
        }

        /** What happens to the snapshot write now starting. */
        SnapshotFate snapshotFate() {
            if (snapshotFailures == 0 && !thenLand) {
                return SnapshotFate.WRITE;
            }
            int n = snapshotWritesSeen.incrementAndGet();
            if (n <= snapshotFailures) {
                fired.incrementAndGet();
                return SnapshotFate.FAIL_BEFORE;
            }
            if (thenLand && n == snapshotFailures + 1) {
                fired.incrementAndGet();
                return SnapshotFate.LAND_THEN_FAIL;
            }
            return SnapshotFate.WRITE;
        }
    }

    enum SnapshotFate {
        WRITE,
        FAIL_BEFORE,
        LAND_THEN_FAIL
    }
}
