package io.paimongov.cli;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.Random;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;

/**
 * The demo's input rows and the reference model of the table they must give.
 *
 * <p>Rows of {@code (p INT, k INT, v STRING)} with primary key {@code (p, k)} are generated one at
 * a time from a seed: {@code p} uniform over the partitions, {@code k} uniform over the keys, so
 * keys repeat and later rows overwrite earlier ones; one row in {@value #DELETE_ONE_IN} whose key is
 * alive is a {@code DELETE} of it instead. The value of row {@code i} is a pure function of {@code
 * (seed, i)}, so the model needs no values: it keeps, per key, only the index of the row that wrote
 * the live value ({@code -1} when the key is absent or deleted). Memory is 4 bytes per possible key
 * however many rows are generated, and the read-back regenerates the expected value when it needs
 * it.
 *
 * <p>The same seed and sizes give the same rows on every JVM ({@link Random} is specified exactly).
 *
 * <p>Not thread-safe: one thread generates, then one thread verifies.
 */
final class DemoWorkload {

    /** One row in this many is a delete, when its key is alive. */
    static final int DELETE_ONE_IN = 10;

    /** The largest partitions x keys the model takes (4 bytes each). */
    static final long MAX_KEY_SPACE = 100_000_000;

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final int VALUE_TRUNCATE = 24;

    private final long seed;
    private final int partitions;
    private final int keys;
    private final int valueBytes;
    private final Random random;
    private final boolean appendOnly;
    private final int[] lastRow;
    private int nextRow;
    private long liveKeys;
    private int deletes;
    /** What the table held before the run ({@link #startFrom}). */
    private DemoBaseline baseline = DemoBaseline.EMPTY;
    /** Baseline keys outside this run's key space: they stay as they are. */
    private final Map<Long, Long> untouched = new HashMap<>();
    private boolean upsertsOnly;

    /** {@code lastRow} of a key whose live value is the baseline's. */
    private static final int FROM_BASELINE = -2;
    private static final int ABSENT = -1;

    DemoWorkload(long seed, int partitions, int keys, int valueBytes) {
        this(seed, partitions, keys, valueBytes, false);
    }

    /**
     * Rows for an append table, which keeps every row: row {@code i} inserts key {@code (i mod
     * partitions, i / partitions)}, a key of its own, so the table must hold exactly the rows.
     */
    static DemoWorkload appendOnly(long seed, int partitions, int rows, int valueBytes) {
        return new DemoWorkload(seed, partitions, (int) ((rows + (long) partitions - 1) / partitions), valueBytes, true);
    }

    private DemoWorkload(long seed, int partitions, int keys, int valueBytes, boolean appendOnly) {
        if ((long) partitions * keys > MAX_KEY_SPACE) {
            throw new IllegalArgumentException("partitions x keys must be at most " + MAX_KEY_SPACE);
        }
        this.seed = seed;
        this.partitions = partitions;
        this.keys = keys;
        this.valueBytes = valueBytes;
        this.random = new Random(seed);
        this.appendOnly = appendOnly;
        this.lastRow = new int[partitions * keys];
        Arrays.fill(lastRow, -1);
    }

    /**
     * Starts the model from what the table holds ({@code --warehouse} with the table already there):
     * a primary-key table's keys are alive with their values (this run's rows overwrite or delete
     * them), an append table's rows stay and this run's are added. Call before the first {@link
     * #next}.
     */
    void startFrom(DemoBaseline b) {
        baseline = b;
        liveKeys += b.size();
        if (appendOnly) {
            return;
        }
        b.values().forEach((key, hash) -> {
            int p = (int) (key >> 32);
            int k = (int) (long) key;
            if (p >= 0 && p < partitions && k >= 0 && k < keys) {
                lastRow[p * keys + k] = FROM_BASELINE;
            } else {
                untouched.put(key, hash);
            }
        });
    }

    /**
     * Makes every row an upsert: a row drawn to delete its key overwrites it instead. For an engine
     * whose SQL writes carry no row kind (Spark's {@code INSERT}); the keys drawn are the same. Call
     * before the first {@link #next}.
     */
    DemoWorkload withoutDeletes() {
        this.upsertsOnly = true;
        return this;
    }

    /** Generates the next row and applies it to the model. */
    InternalRow next() {
        int row = nextRow++;
        if (appendOnly) {
            int slot = (row % partitions) * keys + row / partitions;
            lastRow[slot] = row;
            liveKeys++;
            return GenericRow.of(row % partitions, row / partitions, BinaryString.fromBytes(value(row)));
        }
        int p = random.nextInt(partitions);
        int k = random.nextInt(keys);
        int slot = p * keys + k;
        // Drawn for every row, so the stream of keys does not depend on which keys are alive.
        boolean deleteRoll = random.nextInt(DELETE_ONE_IN) == 0;
        if (deleteRoll && !upsertsOnly && lastRow[slot] != ABSENT) {
            lastRow[slot] = ABSENT;
            liveKeys--;
            deletes++;
            return GenericRow.ofKind(RowKind.DELETE, p, k, null);
        }
        if (lastRow[slot] == ABSENT) {
            liveKeys++;
        }
        lastRow[slot] = row;
        return GenericRow.of(p, k, BinaryString.fromBytes(value(row)));
    }

    /** Keys alive in the model (rows, for an append table): the rows a committed table must hold. */
    long liveKeys() {
        return liveKeys;
    }

    /** Deletes generated so far. */
    int deletes() {
        return deletes;
    }

    /** The value of row {@code row}: {@code valueBytes} lower-case letters from SplitMix64. */
    private byte[] value(int row) {
        byte[] out = new byte[valueBytes];
        long state = seed * GOLDEN + row;
        long bits = 0;
        for (int i = 0; i < out.length; i++) {
            if (i % 12 == 0) {
                state += GOLDEN;
                bits = mix(state);
            }
            out[i] = (byte) ('a' + (int) ((bits & 31) % 26));
            bits >>>= 5;
        }
        return out;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Checks streamed table rows against the model.
     *
     * @param committed whether the write was committed: if not, the table must be empty
     */
    Verifier verifier(boolean committed) {
        return new Verifier(committed);
    }

    /** The outcome of a read-back: what should be visible, what was, and the first difference. */
    record Verification(long expectedRows, long rowsReadBack, String mismatch) {

        /** The table equals what should be visible: the model after a commit, empty otherwise. */
        boolean verified() {
            return mismatch == null;
        }
    }

    /**
     * Takes the table's rows one at a time and remembers only which keys it saw (one bit per
     * possible key) and the first difference. Every row read must be a distinct live key with the
     * model's value, and no live key may be missing; together that is equality. When the run
     * continued into a table ({@link #startFrom}), the model includes what the table held: after a
     * commit merged with this run's rows, without a commit exactly what it held. An append table's
     * rows are not distinct keys: a row that is not one of this run's is taken off the baseline's
     * multiset, which must be empty at the end.
     */
    final class Verifier {
        private final boolean committed;
        private final BitSet seen = new BitSet(lastRow.length);
        /** Baseline keys read, for the keys {@code seen} does not cover. */
        private final Set<Long> seenBaseline = new HashSet<>();
        private long rows;
        private String mismatch;

        private Verifier(boolean committed) {
            this.committed = committed;
        }

        void accept(InternalRow row) {
            rows++;
            if (mismatch != null) {
                return;
            }
            int p = row.getInt(0);
            int k = row.getInt(1);
            BinaryString actual = row.isNullAt(2) ? null : row.getString(2);
            if (appendOnly) {
                checkAppended(p, k, actual);
            } else if (!committed) {
                checkBaseline(p, k, actual, baseline.values(), "although nothing was committed");
            } else if (p < 0 || p >= partitions || k < 0 || k >= keys) {
                checkBaseline(p, k, actual, untouched, "outside the generated key space");
            } else {
                check(p, k, actual);
            }
        }

        private void check(int p, int k, BinaryString actual) {
            int slot = p * keys + k;
            if (seen.get(slot)) {
                mismatch = "key " + key(p, k) + " was read twice";
                return;
            }
            seen.set(slot);
            int writer = lastRow[slot];
            if (writer == ABSENT) {
                mismatch = "key " + key(p, k) + " is in the table but deleted or never written in the model";
            } else if (writer == FROM_BASELINE) {
                if (DemoBaseline.hash(actual) != baseline.values().get(DemoBaseline.key(p, k))) {
                    mismatch = "key " + key(p, k) + " has value " + shorten(actual)
                            + ", not the one the table held before the run";
                }
            } else {
                BinaryString expected = BinaryString.fromBytes(value(writer));
                if (!expected.equals(actual)) {
                    mismatch = "key " + key(p, k) + " has value " + shorten(actual) + " but the model has "
                            + shorten(expected) + " (from row " + writer + ")";
                }
            }
        }

        /** A key this run did not write: it must be one of {@code expected} with its value, once. */
        private void checkBaseline(int p, int k, BinaryString actual, Map<Long, Long> expected, String why) {
            Long key = DemoBaseline.key(p, k);
            Long hash = expected.get(key);
            if (hash == null) {
                mismatch = "row " + key(p, k) + " is visible " + why;
            } else if (!seenBaseline.add(key)) {
                mismatch = "key " + key(p, k) + " was read twice";
            } else if (hash != DemoBaseline.hash(actual)) {
                mismatch = "key " + key(p, k) + " has value " + shorten(actual)
                        + ", not the one the table held before the run";
            }
        }

        private void checkAppended(int p, int k, BinaryString actual) {
            boolean inSpace = p >= 0 && p < partitions && k >= 0 && k < keys;
            int slot = inSpace ? p * keys + k : -1;
            if (committed && inSpace && !seen.get(slot) && lastRow[slot] >= 0
                    && BinaryString.fromBytes(value(lastRow[slot])).equals(actual)) {
                seen.set(slot);
            } else if (!baseline.takeRow(p, k, actual)) {
                mismatch = "row " + key(p, k) + " with value " + shorten(actual) + " is "
                        + (committed ? "neither one of this run's rows nor one the table held" : "visible although nothing was committed");
            }
        }

        /** Rows read so far. */
        long rows() {
            return rows;
        }

        /** Rows the table should hold: the model after a commit, what it held before the run otherwise. */
        long expectedRows() {
            return committed ? liveKeys : baseline.size();
        }

        Verification finish() {
            if (mismatch == null && committed) {
                for (int slot = 0; slot < lastRow.length; slot++) {
                    boolean live = appendOnly ? lastRow[slot] >= 0 : lastRow[slot] != ABSENT;
                    if (live && !seen.get(slot)) {
                        mismatch = "key " + key(slot / keys, slot % keys) + " is missing from the table";
                        break;
                    }
                }
            }
            if (mismatch == null) {
                Map<Long, Long> rest = appendOnly ? Map.of() : committed ? untouched : baseline.values();
                long missing = appendOnly ? baseline.rowsLeft() : rest.size() - seenBaseline.size();
                if (missing > 0) {
                    mismatch = missing + " rows the table held before the run are missing";
                }
            }
            return new Verification(expectedRows(), rows, mismatch);
        }
    }

    private static String key(int p, int k) {
        return "(p=" + p + ", k=" + k + ")";
    }

    private static String shorten(BinaryString value) {
        if (value == null) {
            return "null";
        }
        String s = value.toString();
        return "'" + (s.length() > VALUE_TRUNCATE ? s.substring(0, VALUE_TRUNCATE) + "..." : s) + "'";
    }
}
