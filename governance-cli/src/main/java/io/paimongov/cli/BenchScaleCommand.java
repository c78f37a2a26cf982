package io.paimongov.cli;

import io.paimongov.benchmarks.BenchTables;
import io.paimongov.benchmarks.scale.ScaleCell;
import io.paimongov.benchmarks.scale.ScaleGrid;
import io.paimongov.benchmarks.scale.ScaleReport;
import io.paimongov.benchmarks.scale.ScaleRunner;
import io.paimongov.benchmarks.scale.ScaleTable;
import io.paimongov.runtime.config.Sizes;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bench scale}: the writer-count grid. Every cell (writers x format x table kind) is written
 * governed and by plain Paimon ({@code --repeats} times each where both survive), each in a child JVM of its own with {@code -Xmx} = the budget
 * plus a measured baseline; then the spill series (governed in memory vs at 5% of the input). The
 * harness only measures and reports; a write that fails is a result, and the command exits 0
 * whatever the outcomes ({@link ScaleRunner}; docs/cli.md lists the keys and docs/performance.md
 * says how each is measured).
 *
 * <p>With {@code --json} stdout is exactly one JSON object and progress goes to stderr. With {@code
 * --out DIR} the report is also written to {@code DIR/scale.json} and the chart to {@code
 * DIR/scale.svg}. Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "scale",
        mixinStandardHelpOptions = true,
        description = "The writer-count grid: governed and plain Paimon side by side in child JVMs with -Xmx = budget +"
                + " baseline, for 8 to 8192 writers, every format, pk and append tables (plus pk-dynamic and pk-dv), and"
                + " the spill series.")
final class BenchScaleCommand implements Callable<Integer> {

    static final String JSON_FILE = "scale.json";
    static final String CHART_FILE = "scale.svg";

    @Spec CommandSpec spec;

    @Option(names = "--quick", description = "The CI subset: 8 and 2048 writers, parquet, pk and append, pk-dynamic and pk-dv at 2048,"
            + " fewer rows (about 8 minutes on 2 cores).")
    boolean quick;

    @Option(names = "--json", description = "Print one JSON object with the measured values.")
    boolean json;

    @Option(names = "--writers", split = ",", paramLabel = "N", description = "Writer counts (default 8,256,2048,8192; 8,2048 with --quick).")
    List<Integer> writers;

    @Option(names = "--formats", split = ",", paramLabel = "FORMAT", description = "parquet, orc, avro (default all; parquet with --quick).")
    List<String> formats;

    @Option(names = "--tables", split = ",", paramLabel = "KIND", description = "pk, append, pk-dynamic, pk-dv (default pk,append,"
            + " plus pk-dynamic and pk-dv at 2048 writers).")
    List<String> tables;

    @Option(names = "--rows", paramLabel = "N", description = "Rows per write (default 400000; 200000 with --quick).")
    Integer rows;

    @Option(names = "--row-bytes", paramLabel = "N", description = "Bytes of each row's string value (default 64).")
    Integer rowBytes;

    @Option(names = "--budget", paramLabel = "SIZE", defaultValue = "64m", description = "The governed budget and plain Paimon's"
            + " write-buffer-size, e.g. 64m (default 64m).")
    String budget;

    @Option(names = "--timeout-seconds", paramLabel = "N", description = "The most one child may run before it is killed and reported"
            + " not survived (default 300; 120 with --quick).")
    Long timeoutSeconds;

    @Option(names = "--sample-millis", paramLabel = "N", defaultValue = "1000", description = "Pause between a child's own live-heap"
            + " samples (default 1000).")
    long sampleMillis;

    @Option(names = "--repeats", paramLabel = "N", defaultValue = "" + ScaleRunner.Settings.DEFAULT_REPEATS, description = "How many"
            + " times each side of a pair runs when both survive their first run, alternating; ratios compare the median runs (default "
            + ScaleRunner.Settings.DEFAULT_REPEATS + "; 1 for one run each).")
    int repeats;

    @Option(names = "--min-series-seconds", paramLabel = "S", defaultValue = "" + ScaleRunner.MIN_SERIES_SECONDS, description = "A pair runs"
            + " more rounds than --repeats, up to 15, while either side's timed seconds add up to less than this (default "
            + ScaleRunner.MIN_SERIES_SECONDS + "; 0 runs --repeats rounds).")
    double minSeriesSeconds;

    @Option(names = "--no-spill", description = "Skip the spill series.")
    boolean noSpill;

    @Option(names = "--spill-min-budget", paramLabel = "SIZE", defaultValue = "6m", description = "The least spilling budget of the"
            + " spill series: a spill-series write takes more rows when 5% of its input would be less (default 6m).")
    String spillMinBudget;

    @Option(names = "--out", paramLabel = "DIR", description = "Also write scale.json and scale.svg into DIR (created if missing).")
    Path out;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the children's tables go (default: a temporary directory,"
            + " removed after).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        ScaleGrid grid = grid();
        ScaleRunner.Settings settings;
        try {
            settings = new ScaleRunner.Settings(timeoutSeconds != null ? timeoutSeconds : quick ? 120 : 300, sampleMillis, repeats,
                    minSeriesSeconds);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        DirOption.require(spec, "--out", out);
        DirOption.require(spec, "--work-dir", workDir);
        BenchReport bench = new BenchReport("scale", spec.commandLine().getErr());
        bench.progress(String.format(Locale.ROOT, "%d cells x (governed, plain) and %d spill-series pairs, each in its own JVM ...",
                grid.cells().size(), grid.spills().size()));
        Path dir = workDir != null ? Files.createDirectories(workDir) : ProcessTempScope.tempDirectory("paimon-gov-scale-");
        try (ShutdownCleanup shutdown = ShutdownCleanup.install()) {
            // Interrupted, the runner kills the child it waits for and starts no other.
            shutdown.cancelOnShutdown(Thread.currentThread()::interrupt);
            shutdown.stopChildProcessesOnShutdown();
            if (workDir == null) {
                shutdown.removeOnShutdown(dir);
            }
            return measure(grid, settings, dir, bench, shutdown);
        }
    }

    /** The grid, the files of --out and the report; on a signal the report is not printed ({@link ShutdownCleanup#report}). */
    private int measure(ScaleGrid grid, ScaleRunner.Settings settings, Path dir, BenchReport bench, ShutdownCleanup shutdown)
            throws Exception {
        ScaleReport report;
        try {
            report = ScaleRunner.run(grid, dir, settings, bench::progress);
        } finally {
            if (workDir == null) {
                BenchTables.deleteTree(dir);
            }
        }
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("quick", quick);
        map.put("cores", Runtime.getRuntime().availableProcessors());
        map.putAll(report.toMap(settings));
        map.put("chart", null);
        if (out != null) {
            Files.createDirectories(out);
            Path chart = out.resolve(CHART_FILE).toAbsolutePath();
            ScaleChart.write(report, subtitle(grid), chart);
            map.put("chart", chart.toString());
            Files.writeString(out.resolve(JSON_FILE), Json.write(map) + System.lineSeparator());
            bench.progress("wrote " + out.resolve(JSON_FILE) + " and " + chart);
        }
        PrintWriter stdout = spec.commandLine().getOut();
        shutdown.report(() -> {
            if (json) {
                stdout.println(Json.write(map));
            } else {
                ScaleText.print(stdout, report);
            }
            stdout.flush();
        });
        return GovernanceCli.EXIT_OK;
    }

    private ScaleGrid grid() {
        int n = rows != null ? rows : quick ? ScaleGrid.QUICK_ROWS : ScaleGrid.FULL_ROWS;
        int bytes = rowBytes != null ? rowBytes : ScaleGrid.DEFAULT_ROW_BYTES;
        long budgetBytes;
        try {
            budgetBytes = SizeBounds.budgetOption(budget);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        try {
            ScaleGrid grid;
            if (writers == null && formats == null && tables == null) {
                grid = quick ? ScaleGrid.quick(n, bytes, budgetBytes) : ScaleGrid.full(n, bytes, budgetBytes);
            } else {
                List<Integer> w = writers != null ? writers : quick ? ScaleGrid.QUICK_WRITERS : ScaleGrid.FULL_WRITERS;
                List<String> f = formats != null ? formats.stream().map(s -> s.trim().toLowerCase(Locale.ROOT)).toList()
                        : quick ? List.of("parquet") : ScaleCell.FORMATS;
                List<ScaleTable> t = new ArrayList<>();
                for (String label : tables != null ? tables : List.of("pk", "append")) {
                    t.add(ScaleTable.of(label));
                }
                grid = ScaleGrid.of(w, f, t, n, bytes, budgetBytes);
            }
            return noSpill ? grid.withoutSpills() : grid.withSpillMinBudget(Sizes.parse("--spill-min-budget", spillMinBudget));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private String subtitle(ScaleGrid grid) {
        ScaleCell first = grid.cells().isEmpty() ? null : grid.cells().get(0);
        return first == null ? "no cells" : String.format(Locale.ROOT, "%,d rows of %d-byte values per write, budget %s,"
                + " heap = budget + measured baseline, %d cores", first.rows(), first.rowBytes(), DemoReport.bytes(first.budgetBytes()),
                Runtime.getRuntime().availableProcessors());
    }

}
