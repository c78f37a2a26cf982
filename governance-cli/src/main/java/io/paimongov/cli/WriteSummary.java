package io.paimongov.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The governed writes (and assigners) of one statement, summed from the metrics each of them
 * reported through its engine (Flink's metric system, Spark's accumulators): how many, the largest
 * budget and peak of any one (each has its own budget), and the totals of what they spilled and
 * wrote and what was left after they closed.
 *
 * @param writes governed writers that reported (assigners not counted)
 * @param assigners governed assigners that reported (dynamic-bucket and cross-partition tables)
 * @param budgetBytes the largest budget of one of them
 * @param peakReservedBytes the largest accounted peak of one of them
 * @param spillCount spills, all writes
 * @param spillFiles spill files created, all writes
 * @param spillBytes bytes spilled, all writes
 * @param spillFilesLeft spill files left after close, all writes (0 when they cleaned up)
 * @param reservedAfterClose bytes still reserved after close, all writes (0 when they gave back)
 * @param outputFiles data files written, all writes
 * @param outputBytes bytes of data files written, all writes
 * @param inputRows rows the writers took
 * @param flushCount write-buffer flushes, all writes
 */
record WriteSummary(
        long writes,
        long assigners,
        long budgetBytes,
        long peakReservedBytes,
        long spillCount,
        long spillFiles,
        long spillBytes,
        long spillFilesLeft,
        long reservedAfterClose,
        long outputFiles,
        long outputBytes,
        long inputRows,
        long flushCount) {

    /**
     * The summary of writes whose final metrics are {@code writers} and of assigners {@code
     * assigners}, each a map of snapshot field name to value.
     */
    static WriteSummary of(List<Map<String, Long>> writers, List<Map<String, Long>> assigners) {
        long budget = 0;
        long peak = 0;
        long spillCount = 0;
        long spillFiles = 0;
        long spillBytes = 0;
        long filesLeft = 0;
        long reserved = 0;
        long outputFiles = 0;
        long outputBytes = 0;
        long input = 0;
        long flushes = 0;
        for (List<Map<String, Long>> group : List.of(writers, assigners)) {
            for (Map<String, Long> m : group) {
                budget = Math.max(budget, m.getOrDefault("budgetBytes", 0L));
                peak = Math.max(peak, m.getOrDefault("peakReservedBytes", 0L));
                spillCount += m.getOrDefault("spillCount", 0L);
                spillFiles += m.getOrDefault("spillFiles", 0L);
                spillBytes += m.getOrDefault("spillBytes", 0L);
                filesLeft += m.getOrDefault("spillFilesLeft", 0L);
                reserved += m.getOrDefault("reservedBytes", 0L);
                outputFiles += m.getOrDefault("outputFiles", 0L);
                outputBytes += m.getOrDefault("outputBytes", 0L);
            }
        }
        for (Map<String, Long> m : writers) {
            input += m.getOrDefault("inputRows", 0L);
            flushes += m.getOrDefault("flushCount", 0L);
        }
        return new WriteSummary(writers.size(), assigners.size(), budget, peak, spillCount, spillFiles, spillBytes,
                filesLeft, reserved, outputFiles, outputBytes, input, flushes);
    }

    /** One write's final snapshot. */
    static WriteSummary of(io.paimongov.spi.metrics.MetricsSnapshot m) {
        return new WriteSummary(1, 0, m.budgetBytes(), m.peakReservedBytes(), m.spillCount(), m.spillFiles(), m.spillBytes(),
                m.spillFilesLeft(), m.reservedBytes(), m.outputFiles(), m.outputBytes(), m.inputRows(), m.flushCount());
    }

    /** The summary as the JSON object of the {@code governance} key (docs/cli.md). */
    Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("writes", writes);
        json.put("assigners", assigners);
        json.put("budgetBytes", budgetBytes);
        json.put("peakReservedBytes", peakReservedBytes);
        json.put("spillCount", spillCount);
        json.put("spillFiles", spillFiles);
        json.put("spillBytes", spillBytes);
        json.put("spillFilesLeft", spillFilesLeft);
        json.put("reservedAfterClose", reservedAfterClose);
        json.put("outputFiles", outputFiles);
        json.put("outputBytes", outputBytes);
        json.put("inputRows", inputRows);
        json.put("flushCount", flushCount);
        return json;
    }

    /** One line for people. */
    String toText() {
        return String.format(java.util.Locale.ROOT,
                "governed: %d write(s)%s, budget %s each, peak %s, %d spill(s) %s in %d file(s), %d file(s) %s written;"
                        + " after close %s reserved, %d spill file(s) left",
                writes, assigners == 0 ? "" : " and " + assigners + " assigner(s)", DemoReport.bytes(budgetBytes),
                DemoReport.bytes(peakReservedBytes), spillCount, DemoReport.bytes(spillBytes), spillFiles, outputFiles,
                DemoReport.bytes(outputBytes), DemoReport.bytes(reservedAfterClose), spillFilesLeft);
    }
}
