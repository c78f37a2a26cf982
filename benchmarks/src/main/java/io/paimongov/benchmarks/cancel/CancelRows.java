package io.paimongov.benchmarks.cancel;

import java.util.SplittableRandom;

/**
 * The rows every cancelled job writes, {@code (k INT, v STRING)} as in {@code BenchTables}: row
 * {@code i} is a function of {@code i} alone, so a Flink source subtask, a Spark task and either
 * side of a comparison produce the same rows wherever the index range is split. {@code k} is
 * spread over {@code [0, keys)} (keys repeat), {@code v} is {@value #VALUE_BYTES} lower-case
 * letters.
 *
 * <p>Stateless; thread-safe.
 */
final class CancelRows {

    static final int VALUE_BYTES = 64;

    private CancelRows() {}

    /** Row {@code i}'s key. */
    static int key(long i, int keys) {
        return (int) Math.floorMod(new SplittableRandom(i).nextLong(), (long) keys);
    }

    /** Row {@code i}'s value, a new array. */
    static byte[] value(long i) {
        SplittableRandom random = new SplittableRandom(~i);
        byte[] value = new byte[VALUE_BYTES];
        int at = 0;
        while (at < value.length) {
            long bits = random.nextLong();
            for (int j = 0; j < 12 && at < value.length; j++, bits >>>= 5) {
                value[at++] = (byte) ('a' + (int) ((bits & 31) % 26));
            }
        }
        return value;
    }

    /** The first index of {@code part} when {@code rows} indices are split into {@code parts} ranges. */
    static long rangeStart(long rows, int parts, int part) {
        return rows * part / parts;
    }
}
