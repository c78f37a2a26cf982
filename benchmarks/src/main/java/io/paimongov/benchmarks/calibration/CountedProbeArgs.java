package io.paimongov.benchmarks.calibration;

import java.nio.file.Path;

/**
 * The command line of a probe that measures things counted per page size ({@link HashIndexProbe}
 * keys, {@link SortedKeyProbe} writers), as {@link Calibrate} passes it: {@code PAGE_SIZE COUNT
 * WORK_DIR}.
 *
 * @param pageSize the write's page size
 * @param count how many things the measured write makes
 * @param work the child's own directory
 */
record CountedProbeArgs(int pageSize, int count, Path work) {

    /** Parses {@code args}; a wrong count prints the usage of {@code probe} and exits with 2. */
    static CountedProbeArgs parse(String probe, String counted, String[] args) {
        if (args.length != 3) {
            System.err.println("usage: " + probe + " PAGE_SIZE " + counted + " WORK_DIR");
            System.exit(2);
        }
        return new CountedProbeArgs(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Path.of(args[2]));
    }
}
