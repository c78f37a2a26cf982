package io.paimongov.benchmarks.calibration;

import java.util.Locale;

/**
 * One point of the calibration grid: what a writer's footprint may depend on.
 *
 * @param kind primary key with fixed buckets, append with fixed buckets, or a spill channel
 * @param format {@code parquet}, {@code orc} or {@code avro}; for a spill channel the buffer:
 *     {@code sort} (Paimon's) or {@code tiered} (the runtime's)
 * @param compression the value of {@code file.compression} ({@code zstd} is Paimon's default); for a
 *     spill channel the value of {@code spill-compression}
 * @param valueBytes bytes of the string column of each row
 * @param pageSize the write's page size ({@code page-size}, and the pool's)
 *
 * <p>Immutable.
 */
public record Cell(Kind kind, String format, String compression, int valueBytes, int pageSize) {

    /** The table kinds measured. */
    public enum Kind {
        /** Primary key {@code (p, k)}, fixed buckets: a merge-tree writer with a sort buffer. */
        PK,
        /** Append table, fixed buckets, bucket key {@code k}: rows go straight to the file writer. */
        APPEND,
        /**
         * Not a table: one open spill channel of a sort buffer's merge (format {@code sort},
         * compression the spill codec), measured by {@link SpillChannelProbe}.
         */
        SPILL;

        /** The name in the table and on the command line. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The name progress lines and the tests use. */
    @Override
    public String toString() {
        return kind.label() + " " + format + " " + compression + " v=" + valueBytes + " page=" + (pageSize >> 10) + "k";
    }
}
