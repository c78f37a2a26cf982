package io.paimongov.benchmarks.scale;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The table kinds of the writer-count grid. A writer is a (partition, bucket) pair; each kind says
 * how a writer count becomes partitions and buckets:
 *
 * <ul>
 *   <li>{@link #PK}: primary key {@code (p, k)}, 8 fixed buckets, writers / 8 partitions;
 *   <li>{@link #APPEND}: append table, bucket -1 (unaware: one writer per partition), writers
 *       partitions;
 *   <li>{@link #PK_DYNAMIC}: primary key, bucket -1 (dynamic buckets), writers / 8 partitions, and
 *       {@code dynamic-bucket.target-row-num} set so that Paimon assigns about 8 buckets to each
 *       partition ({@link ScaleCell#dynamicTargetRows()});
 *   <li>{@link #PK_DV}: {@link #PK} with {@code deletion-vectors.enabled}.
 * </ul>
 *
 * <p>Immutable.
 */
public enum ScaleTable {
    PK,
    APPEND,
    PK_DYNAMIC,
    PK_DV;

    /** Buckets per partition of the fixed-bucket kinds. */
    public static final int BUCKETS = 8;

    /** The name on the command line and in the report: {@code pk}, {@code append}, {@code pk-dynamic}, {@code pk-dv}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether the table has a primary key. */
    public boolean primaryKey() {
        return this != APPEND;
    }

    /** The table's {@code bucket} option: 8, or -1 for unaware and dynamic buckets. */
    public int bucketOption() {
        return this == PK || this == PK_DV ? BUCKETS : -1;
    }

    /** Partitions for {@code writers} writers. */
    public int partitions(int writers) {
        return this == APPEND ? writers : writers / BUCKETS;
    }

    /**
     * Refuses a writer count this kind cannot lay out: every kind needs at least one writer, the
     * primary-key kinds a multiple of 8 (partitions of 8 buckets).
     *
     * @throws IllegalArgumentException naming {@code --writers} and the count
     */
    public void check(int writers) {
        if (!primaryKey() && writers < 1) {
            throw new IllegalArgumentException("--writers: a writer count must be positive, not " + writers);
        }
        if (primaryKey() && (writers < BUCKETS || writers % BUCKETS != 0)) {
            throw new IllegalArgumentException("--writers: " + label() + " tables lay out writers as partitions of " + BUCKETS
                    + " buckets, so their writer count must be a positive multiple of " + BUCKETS + ", not " + writers);
        }
    }

    /** The kind labelled {@code label} (any case). @throws IllegalArgumentException naming the valid labels */
    public static ScaleTable of(String label) {
        for (ScaleTable t : values()) {
            if (t.label().equalsIgnoreCase(label.trim())) {
                return t;
            }
        }
        throw new IllegalArgumentException("--tables: unknown table kind '" + label + "'; the kinds are "
                + Arrays.stream(values()).map(ScaleTable::label).collect(Collectors.joining(", ")));
    }
}
