package io.paimongov.benchmarks.cancel;

import io.paimongov.benchmarks.BenchTables;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The keys of {@code bench cancel --json} for one engine's samples, prefixed {@code flink} or
 * {@code spark} (docs/cli.md lists them). Percentiles are nearest-rank over the timed samples;
 * ratios are governed / paimon, two decimals, with a time below 1 ms taken as 1 ms (the engines
 * stamp whole milliseconds). The left-behind checks hold when they held after every timed job of
 * the side.
 *
 * <p>Stateless.
 */
final class CancelReport {

    private CancelReport() {}

    static void flink(Map<String, Object> r, CancelSample.Result result, JobCancel.Settings s) {
        times(r, "flink", result);
        r.put("flinkPairs", s.pairs());
        r.put("flinkRows", s.rows());
        r.put("flinkCancelAfterRows", s.cancelAfterRows());
        r.put("flinkManagedMemoryBytes", s.managedMemoryBytes());
        leftovers(r, "flink", "ManagedMemoryBack", result);
    }

    static void spark(Map<String, Object> r, CancelSample.Result result, SparkCancel.Settings s) {
        times(r, "spark", result);
        r.put("sparkPairs", s.pairs());
        r.put("sparkRows", s.rows());
        r.put("sparkCancelAfterRows", s.cancelAfterRows());
        r.put("sparkMemoryBytes", s.memoryBytes());
        leftovers(r, "spark", "TaskMemoryBack", result);
    }

    private static void times(Map<String, Object> r, String engine, CancelSample.Result result) {
        List<Long> paimon = result.paimon().stream().map(CancelSample::tasksMillis).toList();
        List<Long> governed = result.governed().stream().map(CancelSample::tasksMillis).toList();
        r.put(engine + "CancelRatioP50", ratio(governed, paimon, 50));
        r.put(engine + "CancelRatioP90", ratio(governed, paimon, 90));
        r.put(engine + "CancelP50Millis", bySide(result, s -> BenchTables.percentile(s, 50), CancelSample::tasksMillis));
        r.put(engine + "CancelP90Millis", bySide(result, s -> BenchTables.percentile(s, 90), CancelSample::tasksMillis));
        r.put(engine + "CancelMaxMillis", bySide(result, s -> BenchTables.percentile(s, 100), CancelSample::tasksMillis));
        r.put(engine + "JobEndP50Millis", bySide(result, s -> BenchTables.percentile(s, 50), CancelSample::jobMillis));
        r.put(engine + "JobEndP90Millis", bySide(result, s -> BenchTables.percentile(s, 90), CancelSample::jobMillis));
        r.put(engine + "JobEndMaxMillis", bySide(result, s -> BenchTables.percentile(s, 100), CancelSample::jobMillis));
        r.put(engine + "CancelMillis", bySide(result, s -> s, CancelSample::tasksMillis));
        r.put(engine + "JobEndMillis", bySide(result, s -> s, CancelSample::jobMillis));
        r.put(engine + "RowsAtCancel", bySide(result, BenchTables::median, CancelSample::rowsAtCancel));
        r.put(engine + "Tasks", bySide(result, CancelReport::sum, CancelSample::tasks));
        r.put(engine + "TasksCancelled", bySide(result, CancelReport::sum, CancelSample::tasksCancelled));
    }

    /** The four checks per side, and whether all held; {@code memoryKey} names the engine's memory. */
    private static void leftovers(Map<String, Object> r, String engine, String memoryKey, CancelSample.Result result) {
        for (Map.Entry<String, List<CancelSample>> side : Map.of("Governed", result.governed(), "Paimon", result.paimon()).entrySet()
                .stream().sorted(Map.Entry.comparingByKey()).toList()) {
            String p = engine + side.getKey();
            List<CancelSample> samples = side.getValue();
            r.put(p + "NoSnapshot", all(samples, s -> !s.left().snapshot()));
            r.put(p + "NoSpillScope", all(samples, s -> s.left().spillScopes() == 0));
            r.put(p + memoryKey, all(samples, s -> s.left().memoryBack()));
            r.put(p + "NoDataFiles", all(samples, s -> s.left().dataFiles() == 0));
            r.put(p + "LeftNothing", all(samples, s -> s.left().none()));
        }
    }

    private static boolean all(List<CancelSample> samples, Predicate<CancelSample> check) {
        return !samples.isEmpty() && samples.stream().allMatch(check);
    }

    private static double ratio(List<Long> governed, List<Long> paimon, double p) {
        return BenchTables.round2((double) Math.max(1, BenchTables.percentile(governed, p)) / Math.max(1, BenchTables.percentile(paimon, p)));
    }

    private static <T> Map<String, T> bySide(CancelSample.Result result, Function<List<Long>, T> of, ToLongFunction<CancelSample> field) {
        Map<String, T> m = new LinkedHashMap<>();
        m.put("paimon", of.apply(result.paimon().stream().map(field::applyAsLong).toList()));
        m.put("governed", of.apply(result.governed().stream().map(field::applyAsLong).toList()));
        return m;
    }

    private static long sum(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).sum();
    }
}
