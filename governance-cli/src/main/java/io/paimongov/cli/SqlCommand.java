package io.paimongov.cli;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.tables.DamagedTableException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.MemorySize;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code sql}: runs SQL statements on an embedded engine (Flink or Spark) with the governed catalog
 * {@value SqlEngine#CATALOG} registered on a warehouse, and prints what each returned and what its
 * governed writes did.
 *
 * <p>Output: query results as tables (text) or one JSON object per statement, one per line ({@code
 * --json}); progress, engine logs and errors to stderr. The statements run in order; the first that
 * fails names itself and ends the run with exit code 1; statements after it do not run. Bad
 * arguments exit 2. Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "sql",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = {
            "Runs SQL statements (separated by ;) on an embedded engine: Flink (a local cluster, batch mode unless"
                    + " SET 'execution.runtime-mode' = 'streaming') or Spark (local[2]), with the catalog 'governed'"
                    + " (Paimon tables written through governed writes) registered on the warehouse and current.",
            "SET, USE, DDL, DML and queries work as in the engine's own SQL client. Query results print as"
                    + " tables; each write statement prints what its governed writes did (budget, peak, spills)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every statement ran",
            "1:a statement failed (it is named; the ones after it did not run)",
            "2:bad arguments",
            "3:an internal failure outside the statements (the error is printed)",
            "4:an error of the environment: no space left, permission denied, a read-only file system, out of memory,"
                    + " a damaged table the statement names",
            "130:stopped by SIGINT (Ctrl-C)",
            "143:stopped by SIGTERM"
        })
final class SqlCommand implements Callable<Integer> {

    static final String DEFAULT_MANAGED_MEMORY = "256m";

    /** What to do about a damaged table a statement met. */
    static final String DAMAGE_ADVICE = "restore the file from a backup, or drop the table (DROP TABLE) and write it"
            + " again";

    @Spec CommandSpec spec;

    @Option(names = "--engine", paramLabel = "ENGINE", required = true,
            description = "flink or spark.")
    String engine;

    @Option(names = "--warehouse", paramLabel = "DIR",
            description = "The warehouse of the catalog 'governed'; kept. Default: a temporary directory, removed at the end.")
    Path warehouse;

    @Option(names = "--provider", paramLabel = "NAME",
            description = "The allocator of the governed writes: the engine's own (flink: the slots' managed memory,"
                    + " spark: the tasks' execution memory), which is the only one an engine's catalog writes with."
                    + " Default: the engine's.")
    String provider;

    @Option(names = {"-e", "--execute"}, paramLabel = "STATEMENTS", description = "The statements to run.")
    String statements;

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "A file of statements to run (UTF-8).")
    Path file;

    @Option(names = "--catalog-option", paramLabel = "KEY=VALUE",
            description = "More options of the catalog 'governed', e.g. governance.memory.budget=32m (repeatable).")
    List<String> catalogOptions = new ArrayList<>();

    @Option(names = "--managed-memory", paramLabel = "SIZE",
            description = "Flink only: the embedded task manager's managed memory, which the governed writers share."
                    + " Default: " + DEFAULT_MANAGED_MEMORY + ".")
    String managedMemory;

    @Option(names = "--json", description = "One JSON object per statement, one per line (keys in docs/cli.md).")
    boolean json;

    @Override
    public Integer call() throws Exception {
        DirOption.require(spec, "--warehouse", warehouse);
        String script = script();
        List<String> parsed = parse(script);
        Map<String, String> catalog = catalogOptions();
        checkProvider();
        long memory = managedMemory();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path dir = warehouse;
        boolean temporary = dir == null;
        if (temporary) {
            dir = ProcessTempScope.tempDirectory("paimon-governance-sql-");
        } else {
            Files.createDirectories(dir);
        }
        if (!json) {
            err.println("warehouse: " + dir + (temporary ? " (temporary)" : ""));
        }
        try (ShutdownCleanup shutdown = ShutdownCleanup.install();
                SqlEngine sql = open(dir.toAbsolutePath(), catalog, memory)) {
            if (temporary) {
                shutdown.removeOnShutdown(dir);
            }
            int number = 0;
            for (String statement : parsed) {
                number++;
                SqlEngine.Result result;
                try {
                    // Checked before it runs: a Flink read of a table whose data file is missing has
                    // been seen to wait for ever, its fetcher's error never reaching the task.
                    Optional<DamagedTableException> damaged = DamagedTables.named(dir, statement);
                    if (damaged.isPresent()) {
                        throw damaged.get();
                    }
                    result = sql.execute(statement);
                } catch (Exception e) {
                    RootCause.Diagnosis why = diagnose(e, statement, dir);
                    String failure = "statement " + number + " failed: " + firstLine(statement) + ": " + why.message();
                    if (json) {
                        out.println(Json.line(failedJson(statement, failure)));
                        out.flush();
                    }
                    err.println("error: " + failure);
                    return why.kind() == RootCause.Kind.ENVIRONMENT
                            ? GovernanceCli.EXIT_ENVIRONMENT
                            : GovernanceCli.EXIT_VERIFICATION_FAILED;
                }
                if (json) {
                    out.println(Json.line(resultJson(statement, result)));
                } else {
                    SqlTables.print(out, statement, result);
                }
                out.flush();
            }
            return GovernanceCli.EXIT_OK;
        } finally {
            if (temporary) {
                ShutdownCleanup.deleteTree(dir);
            }
        }
    }

    /** The engine with its catalog registered; a catalog that refuses its options is a bad argument. */
    private SqlEngine open(Path dir, Map<String, String> catalog, long memory) {
        try {
            return switch (engine) {
                case "flink" -> new FlinkSqlEngine(dir, catalog, memory);
                case "spark" -> new SparkSqlEngine(dir, catalog);
                default -> throw new IllegalStateException("checked in script(): " + engine);
            };
        } catch (IllegalArgumentException e) {
            throw invalid("--catalog-option", e.getMessage());
        }
    }

    /** The statements given: {@code -e} or {@code -f}, exactly one. */
    private String script() {
        AddOn addOn = AddOn.named(engine)
                .orElseThrow(() -> invalid("--engine", "must be flink or spark but was '" + engine + "'"));
        if (!addOn.present()) {
            throw invalid("--engine", addOn.missing("engine '" + engine + "'"));
        }
        if ((statements == null) == (file == null)) {
            throw invalid("-e", "give the statements with exactly one of -e STATEMENTS and -f FILE");
        }
        if (statements != null) {
            return statements;
        }
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw invalid("-f", "no such file: " + file);
        } catch (IOException e) {
            throw invalid("-f", "cannot read " + file + ": " + e.getMessage());
        }
    }

    private List<String> parse(String script) {
        List<String> parsed;
        try {
            parsed = SqlScript.statements(script);
        } catch (IllegalArgumentException e) {
            throw invalid(statements != null ? "-e" : "-f", e.getMessage());
        }
        if (parsed.isEmpty()) {
            throw invalid(statements != null ? "-e" : "-f", "holds no statement");
        }
        return parsed;
    }

    private Map<String, String> catalogOptions() {
        Map<String, String> options = new LinkedHashMap<>();
        for (String option : catalogOptions) {
            int eq = option.indexOf('=');
            if (eq <= 0) {
                throw invalid("--catalog-option", "must be KEY=VALUE but was '" + option + "'");
            }
            options.put(option.substring(0, eq).trim(), option.substring(eq + 1).trim());
        }
        try {
            GovernanceOptions.forProvider(engine, options);
        } catch (IllegalArgumentException e) {
            throw invalid("--catalog-option", e.getMessage());
        }
        return options;
    }

    /**
     * The failure's root cause; one that is neither a usage error nor the environment's, of a
     * statement naming a table that is damaged, is that damage ({@link DamagedTables}).
     */
    private static RootCause.Diagnosis diagnose(Exception e, String statement, Path warehouse) {
        RootCause.Diagnosis why = RootCause.of(e, RootCause.Memory.of(-1), List.of(warehouse), DAMAGE_ADVICE);
        if (why.kind() != RootCause.Kind.INTERNAL) {
            return why;
        }
        return DamagedTables.named(warehouse, statement)
                .map(damaged -> RootCause.of(damaged, RootCause.Memory.of(-1), List.of(warehouse), DAMAGE_ADVICE))
                .orElse(why);
    }

    /**
     * Flink's managed memory in bytes; refused with Spark, whose writes take the tasks' execution
     * memory. Parsed by Flink, so it is called only once the Flink add-on is known to be present.
     */
    private long managedMemory() {
        if (managedMemory == null) {
            return engine.equals("flink") ? MemorySize.parse(DEFAULT_MANAGED_MEMORY).getBytes() : 0;
        }
        if (!engine.equals("flink")) {
            throw invalid("--managed-memory", "applies to --engine flink only; Spark's governed writes take the local"
                    + " session's execution memory, a share of the JVM's heap (JAVA_OPTS=-Xmx...)");
        }
        try {
            return MemorySize.parse(managedMemory).getBytes();
        } catch (IllegalArgumentException e) {
            throw invalid("--managed-memory", "'" + managedMemory + "' is not a size; use bytes or a unit such as 128m, 1g");
        }
    }

    private void checkProvider() {
        if (provider != null && !provider.equals(engine)) {
            throw invalid("--provider", "the " + engine + " engine's catalog writes with provider '" + engine
                    + "' (its own memory), not '" + provider + "'; leave the option out");
        }
    }

    private static Map<String, Object> resultJson(String statement, SqlEngine.Result result) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("statement", statement);
        json.put("kind", result.kind().name().toLowerCase(java.util.Locale.ROOT));
        json.put("columns", result.columns());
        json.put("rows", result.rows());
        json.put("governance", result.governance() == null ? null : result.governance().toJson());
        json.put("elapsedMillis", result.elapsedMillis());
        json.put("error", null);
        return json;
    }

    private static Map<String, Object> failedJson(String statement, String failure) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("statement", statement);
        json.put("kind", null);
        json.put("columns", List.of());
        json.put("rows", List.of());
        json.put("governance", null);
        json.put("elapsedMillis", null);
        json.put("error", failure);
        return json;
    }

    static String firstLine(String statement) {
        String line = statement.strip().lines().findFirst().orElse("");
        return line.length() > 80 ? line.substring(0, 77) + "..." : line;
    }

    private ParameterException invalid(String option, String message) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + message);
    }
}
