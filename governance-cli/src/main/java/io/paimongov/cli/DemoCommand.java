package io.paimongov.cli;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.tck.TableModes;
import io.paimongov.runtime.Providers;
import io.paimongov.nativehost.NativeGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code demo}: the options, their validation and the output. Every option is checked before
 * anything runs, and a bad one is a {@link ParameterException} naming it (exit code 2); the run
 * itself is {@link DemoJob}'s.
 *
 * <p>Output: the report goes to stdout, as text or, with {@code --json}, as exactly one JSON
 * object; the progress bar and error messages go to stderr. Picocli creates one instance per
 * execution; not thread-safe.
 */
@Command(
        name = "demo",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = {
            "Writes a Paimon table (primary key by default; --table for the other modes) through one governed write, commits it, reads it back"
                    + " and checks it against a reference model of the input, then explains what the"
                    + " governance did: memory budget and peak, spills, files, and what was left after close.",
            "The input is generated from a seed: repeated keys, ~10%% deletes of live keys, several"
                    + " partitions and buckets. Defaults run in about 10 s on two cores."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success (an expected cancel included)",
            "1:the table read back differs from the model",
            "2:bad arguments, or a setting the provider refused when the write opened (a budget larger than the heap)",
            "3:the run failed (the error is printed)",
            "4:an error of the environment: no space left, permission denied, a read-only file system, out of memory,"
                    + " a damaged table (the file is named), another writer of the table at the same time",
            "130:stopped by SIGINT (Ctrl-C); the write was cancelled and what the run created removed",
            "143:stopped by SIGTERM; likewise"
        })
final class DemoCommand implements Callable<Integer> {

    static final List<String> FORMATS = List.of("parquet", "orc", "avro");
    static final int MAX_BUCKETS = 1024;
    static final int MAX_PARTITIONS = 1024;
    static final int MAX_VALUE_BYTES = 1 << 20;

    @Spec CommandSpec spec;

    @Option(names = "--provider", paramLabel = "NAME", defaultValue = "heap",
            description = "Allocator module that governs the write (see 'providers'). Default: ${DEFAULT-VALUE}.")
    String provider;

    @Option(names = "--budget", paramLabel = "SIZE", defaultValue = "64m",
            description = "The write's whole memory budget (governance.memory.budget), e.g. 16m, 1g."
                    + " Default: ${DEFAULT-VALUE}.")
    String budget;

    @Option(names = "--rows", paramLabel = "N", defaultValue = "1000000",
            description = "Rows to write. Default: ${DEFAULT-VALUE}.")
    int rows;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "100000",
            description = "Distinct keys per partition; rows repeat them. Default: ${DEFAULT-VALUE}.")
    int keys;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "2",
            description = "Partitions (1 to " + MAX_PARTITIONS + "). Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Option(names = "--table", paramLabel = "MODE", defaultValue = "pk",
            description = "Table mode: pk (primary key, fixed buckets), pk-dynamic (bucket -1), pk-dv (deletion"
                    + " vectors), pk-lookup (lookup changelog producer), append (no key, no buckets),"
                    + " append-bucketed (no key, --buckets), postpone (bucket -2). Default: ${DEFAULT-VALUE}.")
    String table;

    @Option(names = "--buckets", paramLabel = "N", defaultValue = "4",
            description = "Buckets per partition (1 to " + MAX_BUCKETS + ") of the modes with fixed buckets."
                    + " Default: ${DEFAULT-VALUE}.")
    int buckets;

    @Option(names = "--value-bytes", paramLabel = "N", defaultValue = "32",
            description = "Length of each value (1 to " + MAX_VALUE_BYTES + "). Default: ${DEFAULT-VALUE}.")
    int valueBytes;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "parquet",
            description = "File format: parquet, orc or avro. Default: ${DEFAULT-VALUE}.")
    String format;

    @Option(names = "--warehouse", paramLabel = "DIR",
            description = "Warehouse directory to create the table " + DemoTable.DATABASE + "." + DemoTable.TABLE
                    + " in; kept after the run. A table already there with the same layout is continued into"
                    + " (the model starts from its rows). Default: a temporary directory, removed at the end.")
    Path warehouse;

    @Option(names = "--replace",
            description = "Drop the table --warehouse holds already and create it again, also when its layout differs.")
    boolean replace;

    @Option(names = "--orphans-older-than", paramLabel = "DURATION",
            description = "When the write opens, remove the table's files that no snapshot references and that are"
                    + " older than this (0s, 90s, 10m, 2h, 1d), or off (governance.orphans.older-than)."
                    + " Default: 1d.")
    String orphansOlderThan;

    @Option(names = "--keep", description = "Keep the temporary warehouse and print where it is.")
    boolean keep;

    @Option(names = "--spill-dir", paramLabel = "DIR[,DIR...]",
            description = "Roots for the write's spill scope (governance.spill.dirs). Default: the process's temp scope in java.io.tmpdir.")
    String spillDirs;

    @Option(names = "--page-size", paramLabel = "SIZE", defaultValue = "auto",
            description = "Write-buffer page size, a power of two from 4k to 16m, or auto: the largest power of two"
                    + " at most the budget / 192, from 4k to 64k (governance.memory.page-size). Default: ${DEFAULT-VALUE}.")
    String pageSize;

    @Option(names = "--spill-max-bytes", paramLabel = "SIZE", defaultValue = "unlimited",
            description = "Most spill bytes on disk at once (governance.spill.max-bytes). Default: ${DEFAULT-VALUE}.")
    String spillMaxBytes;

    @Option(names = "--cancel-after-rows", paramLabel = "N",
            description = "Cancel the write from another thread once N rows were written; nothing is committed."
                    + " 0 to --rows; below --rows with provider flink.")
    Long cancelAfterRows;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "Seed of the generated input. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--timeline", paramLabel = "FILE.svg",
            description = "Also draw the write's accounted memory over time against the budget, with spills and"
                    + " flushes marked, as an SVG chart into FILE.svg (its directory must exist).")
    Path timeline;

    @Option(names = "--json", description = "Print the report as one JSON object (keys in docs/cli.md), no progress bar.")
    boolean json;

    @Override
    public Integer call() {
        DemoSettings settings = settings();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        // System.console() is null unless the JVM has a terminal, so pipes and logs get no bar.
        Progress progress = Progress.on(err, !json && System.console() != null);
        try (ShutdownCleanup shutdown = ShutdownCleanup.install()) {
            DemoReport report = new DemoJob(settings, progress, shutdown).run();
            String text = json ? report.toJson() + System.lineSeparator() : report.toText();
            shutdown.report(() -> {
                out.print(text);
                out.flush();
                if (report.error() != null) {
                    err.println("error: " + report.error());
                    err.flush();
                }
            });
            return report.exitCode();
        }
    }

    /** The validated settings; the first bad option throws a {@link ParameterException} naming it. */
    private DemoSettings settings() {
        require(rows >= 1, "--rows", "must be at least 1 but was " + rows);
        require(keys >= 1, "--keys", "must be at least 1 but was " + keys);
        require(partitions >= 1 && partitions <= MAX_PARTITIONS, "--partitions",
                "must be from 1 to " + MAX_PARTITIONS + " but was " + partitions);
        require((long) partitions * keys <= DemoWorkload.MAX_KEY_SPACE, "--keys",
                "--partitions x --keys must be at most " + DemoWorkload.MAX_KEY_SPACE + " but was "
                        + (long) partitions * keys);
        TableModes mode = tableMode();
        require(mode.primaryKey() || rows <= DemoWorkload.MAX_KEY_SPACE, "--rows",
                "an append table keeps every row and the model one slot per row: at most "
                        + DemoWorkload.MAX_KEY_SPACE + " but was " + rows);
        require(buckets >= 1 && buckets <= MAX_BUCKETS, "--buckets",
                "must be from 1 to " + MAX_BUCKETS + " but was " + buckets);
        require(valueBytes >= 1 && valueBytes <= MAX_VALUE_BYTES, "--value-bytes",
                "must be from 1 to " + MAX_VALUE_BYTES + " but was " + valueBytes);
        require(FORMATS.contains(format), "--format",
                "'" + format + "' is not one of " + String.join(", ", FORMATS));
        long cancelAt = cancelAfterRows == null ? -1 : cancelAfterRows;
        require(cancelAfterRows == null || cancelAt >= 0 && cancelAt <= rows, "--cancel-after-rows",
                "must be from 0 to --rows (" + rows + ") but was " + cancelAfterRows);
        DirOption.require(spec, "--warehouse", warehouse);
        checkExistingTable(mode);
        GovernanceProvider chosen = provider();
        checkEngine(chosen.name());
        return new DemoSettings(chosen, options(chosen.name()), rows, keys, partitions, mode, buckets, valueBytes, format,
                warehouse == null ? null : warehouse.toAbsolutePath(), replace, keep, cancelAt, seed, timelineFile());
    }

    /**
     * Providers flink and spark run the demo as an engine's SQL job (a local cluster, a local Spark
     * session): a timeline draws one write's memory here, which they have not, a Spark statement
     * is not cancelled by row count, and a Flink job is cancelled only before its last row.
     */
    private void checkEngine(String name) {
        if (!DemoEngines.isEngine(name)) {
            return;
        }
        require(timeline == null, "--timeline", "draws the memory of a write in this process; with provider '" + name
                + "' the write runs in the engine's task (its metrics are in the report)");
        require(cancelAfterRows == null || name.equals("flink"), "--cancel-after-rows",
                "is not offered with provider 'spark' (Spark's cancel is measured by 'bench cancel')");
        // The job ends (and commits) once its source has given every row: a cancel at --rows races the commit.
        require(cancelAfterRows == null || cancelAfterRows < rows, "--cancel-after-rows",
                "must be below --rows (" + rows + ") with provider 'flink', whose job commits once the last row was"
                        + " written, but was " + cancelAfterRows);
    }

    /** A table --warehouse holds already must be laid out as this run asks, unless --replace drops it. */
    private void checkExistingTable(TableModes mode) {
        require(!replace || warehouse != null, "--replace", "needs --warehouse");
        if (warehouse == null || replace || !DemoTable.exists(warehouse)) {
            return;
        }
        Optional<String> difference;
        try {
            difference = DemoTable.difference(warehouse, mode, buckets, format);
        } catch (Exception e) {
            if (DemoTable.schemaDamage(warehouse).isPresent()) {
                // A damaged table is the environment's failure: the run reports it (exit code 4).
                return;
            }
            // The exception's type alone: a parser's message quotes the bytes it choked on.
            throw invalid("--warehouse", "cannot read the table " + DemoTable.DATABASE + "." + DemoTable.TABLE
                    + " in '" + warehouse + "' (" + e.getClass().getSimpleName() + "); --replace drops and recreates it");
        }
        difference.ifPresent(d -> {
            throw invalid("--warehouse", "'" + warehouse + "' holds table " + DemoTable.DATABASE + "." + DemoTable.TABLE
                    + " laid out otherwise: " + d + ". Run with the same layout to continue into it, or add --replace"
                    + " to drop and recreate it");
        });
    }

    private TableModes tableMode() {
        try {
            return TableModes.of(table);
        } catch (IllegalArgumentException e) {
            throw invalid("--table", e.getMessage());
        }
    }

    /** The absolute timeline file, checked now so that a bad one fails before anything is written. */
    private Path timelineFile() {
        if (timeline == null) {
            return null;
        }
        require(LabTool.present(), "--timeline", LabTool.missing("--timeline (a chart drawn with JFreeChart)"));
        Path file = timeline.toAbsolutePath().normalize();
        Path name = file.getFileName();
        require(name != null && name.toString().toLowerCase(Locale.ROOT).endsWith(".svg"), "--timeline",
                "'" + timeline + "' must name an .svg file");
        require(!Files.isDirectory(file), "--timeline", "'" + timeline + "' is a directory; name an .svg file in it");
        Path dir = file.getParent();
        require(dir != null && Files.isDirectory(dir), "--timeline",
                "the directory of '" + timeline + "' (" + dir + ") does not exist");
        require(Files.isWritable(dir) && (!Files.exists(file) || Files.isWritable(file)), "--timeline",
                "'" + timeline + "' cannot be written");
        return file;
    }

    private GovernanceProvider provider() {
        try {
            return Providers.load(provider, GovernanceCli.class.getClassLoader());
        } catch (IllegalArgumentException e) {
            // Not found: if an engine add-on brings it, name the archive rather than list the others.
            Optional<AddOn> addOn = AddOn.named(provider).filter(a -> !a.present());
            throw invalid("--provider", addOn.map(a -> a.missing("provider '" + provider + "'")).orElse(e.getMessage()));
        }
    }

    /**
     * Sets one key at a time, each validated with those before it, so a failure names the option
     * that caused it (the budget's minimum depends on the page size, so the page size goes first).
     */
    /**
     * The governance options of the flags. The native provider gets a reference host of the write's
     * own ({@code governance.native.host=reference}): the demo runs in no native host.
     */
    private GovernanceOptions options(String providerName) {
        GovernanceOptions options = GovernanceOptions.defaults();
        if (providerName.equals(NativeGovernanceProvider.NAME)) {
            options = options.with(NativeGovernanceProvider.HOST_KEY, NativeGovernanceProvider.REFERENCE_HOST);
        }
        options = with(options, GovernanceOptions.PAGE_SIZE, pageSize, "--page-size");
        options = with(options, GovernanceOptions.MEMORY_BUDGET, budget, "--budget");
        String tooLarge = SizeBounds.budget(options.budgetBytes(), SizeBounds.machineMemoryBytes());
        require(tooLarge == null, "--budget", tooLarge);
        options = with(options, GovernanceOptions.SPILL_MAX_BYTES, spillMaxBytes, "--spill-max-bytes");
        if (spillDirs != null) {
            options = with(options, GovernanceOptions.SPILL_DIRS, spillDirs, "--spill-dir");
        }
        tooLarge = SizeBounds.spillMaxBytes(options.spillMaxBytes(), options.spillDirs());
        require(tooLarge == null, "--spill-max-bytes", tooLarge);
        if (orphansOlderThan != null) {
            options = with(options, GovernanceOptions.ORPHANS_OLDER_THAN, orphansOlderThan, "--orphans-older-than");
        }
        return options;
    }

    private GovernanceOptions with(GovernanceOptions options, String key, String value, String option) {
        try {
            return options.with(key, value);
        } catch (IllegalArgumentException e) {
            throw invalid(option, e.getMessage());
        }
    }

    private void require(boolean ok, String option, String message) {
        if (!ok) {
            throw invalid(option, message);
        }
    }

    private ParameterException invalid(String option, String message) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + message);
    }
}
