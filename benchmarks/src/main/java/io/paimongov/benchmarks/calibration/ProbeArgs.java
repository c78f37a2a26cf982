package io.paimongov.benchmarks.calibration;

import java.nio.file.Path;
import java.util.Locale;

/**
 * A footprint probe's command line, as {@link Calibrate} passes it to every probe child: {@code
 * KIND FORMAT COMPRESSION VALUE_BYTES PAGE_SIZE ROWS_PER_WRITER WRITERS WORK_DIR}.
 *
 * @param cell the cell of the first five arguments
 * @param rowsPerWriter rows each writer gets
 * @param writers writers (partition-bucket pairs) of the measured write
 * @param work the child's own directory
 */
record ProbeArgs(Cell cell, int rowsPerWriter, int writers, Path work) {

    static final int COUNT = 8;

    /** Parses {@code args}; a wrong count prints the usage of {@code probe} and exits with 2. */
    static ProbeArgs parse(String probe, String[] args) {
        if (args.length != COUNT) {
            System.err.println("usage: " + probe + " pk|append FORMAT COMPRESSION VALUE_BYTES PAGE_SIZE ROWS WRITERS WORK_DIR");
            System.exit(2);
        }
        Cell cell = new Cell(Cell.Kind.valueOf(args[0].toUpperCase(Locale.ROOT)), args[1], args[2], Integer.parseInt(args[3]),
                Integer.parseInt(args[4]));
        return new ProbeArgs(cell, Integer.parseInt(args[5]), Integer.parseInt(args[6]), Path.of(args[7]));
    }
}
