package io.paimongov.benchmarks.scale;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.ChildJvm;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How one writing child of the scale grid ended: survived (its write committed and it printed its
 * result line) or not, with the reason, and the numbers it printed.
 *
 * @param survived whether the write committed
 * @param reason why it did not, one line ({@code OutOfMemoryError: ...}, {@code
 *     ResourceExhaustedException: ...}, {@code GC thrash: ...}, {@code timed out after N s}, any
 *     other exception); null when it survived
 * @param childMillis the child's wall time, JVM start included
 * @param values the child's result line ({@code key=value}, every value a whole number); empty
 *     when it did not survive
 *
 * <p>Immutable.
 */
public record ChildRun(boolean survived, String reason, long childMillis, Map<String, Long> values) {

    public ChildRun {
        values = Map.copyOf(values);
    }

    /** A run that survived with {@code values}. */
    public static ChildRun survived(long childMillis, Map<String, Long> values) {
        return new ChildRun(true, null, childMillis, values);
    }

    /** A run that did not survive, for {@code reason}. */
    public static ChildRun failed(String reason, long childMillis) {
        return new ChildRun(false, reason, childMillis, Map.of());
    }

    /** Reads how a child ended from its exit, time and output. */
    static ChildRun of(ChildJvm.Ended ended, long timeoutSeconds) {
        if (ended.timedOut()) {
            return failed("timed out after " + timeoutSeconds + " s (killed)", ended.millis());
        }
        if (ended.outOfMemory()) {
            String line = ended.output().lines().filter(l -> l.contains(ChildJvm.OOM)).findFirst().orElse(ChildJvm.OOM);
            return failed(ChildJvm.OOM + ": " + line.trim(), ended.millis());
        }
        String failed = ended.output().lines().filter(l -> l.startsWith(ScaleChild.FAILED + " ")).findFirst().orElse(null);
        if (failed != null) {
            return failed(failed.substring(ScaleChild.FAILED.length() + 1), ended.millis());
        }
        String result = ended.output().lines().filter(l -> l.startsWith(ScaleChild.RESULT + " ")).findFirst().orElse(null);
        if (ended.exitCode() != 0 || result == null) {
            return failed("exited with code " + ended.exitCode() + ": " + ended.tail(2).replaceAll("\\s+", " "), ended.millis());
        }
        return survived(ended.millis(), values(result));
    }

    static Map<String, Long> values(String resultLine) {
        Map<String, Long> values = new HashMap<>();
        for (String pair : resultLine.substring(ScaleChild.RESULT.length() + 1).trim().split(" ")) {
            String[] kv = pair.split("=", 2);
            values.put(kv[0], Long.parseLong(kv[1]));
        }
        return values;
    }

    /** A value of the result line; 0 when absent. */
    public long value(String key) {
        return values.getOrDefault(key, 0L);
    }

    /** The timed part (opening the write through prepareCommit) in seconds; null when it did not survive. */
    public Double seconds() {
        return survived ? value("nanos") / 1e9 : null;
    }

    /** Rows per second of the timed part; null when it did not survive. */
    public Long rowsPerSec() {
        return survived ? Math.round(value("rows") / Math.max(1e-9, seconds())) : null;
    }

    /**
     * The keys every run reports: {@code survived}, {@code reason}, {@code rowsPerSec}, {@code
     * seconds} (the timed part when it survived, else the child's wall time until it ended), {@code
     * liveHeapPeakBytes} (above the child's baseline), {@code heapSamples} (full collections read),
     * {@code samplerGcMillis} (the sampler's own collections, inside {@code seconds}) and {@code
     * spillWrittenBytes} (what the JVM wrote outside the table's warehouse); the last four null when
     * it did not survive.
     */
    Map<String, Object> common() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("survived", survived);
        m.put("reason", reason);
        m.put("rowsPerSec", rowsPerSec());
        m.put("seconds", BenchTables.round2(survived ? seconds() : childMillis / 1e3));
        m.put("liveHeapPeakBytes", survived ? value("liveHeapPeakBytes") - value("heapBaselineBytes") : null);
        m.put("heapSamples", survived ? value("heapSamples") : null);
        m.put("samplerGcMillis", survived ? value("samplerGcMillis") : null);
        m.put("spillWrittenBytes", survived ? value("spillWrittenBytes") : null);
        return m;
    }

    @Override
    public String toString() {
        return survived
                ? String.format(Locale.ROOT, "survived, %,d rows/s (%.1f s)", rowsPerSec(), seconds())
                : "FAILED after " + childMillis / 1000 + " s: " + reason;
    }
}
