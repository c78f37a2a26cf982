package io.paimongov.cli;

import io.paimongov.runtime.config.Durations;
import io.paimongov.runtime.orphans.OrphanFiles;
import io.paimongov.runtime.tables.PaimonPaths;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code clean}: removes, in every table of a file-system warehouse, the files no snapshot
 * references that are older than {@code --older-than}, through Paimon's own orphan-file clean
 * ({@link OrphanFiles}); {@code --dry-run} only lists them. docs/cli.md has the output and the exit
 * codes: 0 done, 2 bad arguments (stdout empty), 4 an I/O failure such as a directory it may not
 * read or a file it could not delete (every other table is still cleaned; the report says which
 * failed), 3 anything else.
 *
 * <p>Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "clean",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = {
            "Removes the files that no snapshot references (data, changelog, manifest and index files left by a"
                    + " crashed or abandoned write) from every table of a file-system warehouse, with Paimon's own"
                    + " orphan-file clean. Only files older than --older-than are taken, so that a write still under"
                    + " way elsewhere keeps its files."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done (or listed, with --dry-run)",
            "2:bad arguments",
            "3:an internal failure (the error is printed)",
            "4:an I/O failure: a directory that cannot be read, a file that could not be deleted"
        })
final class CleanCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--warehouse", paramLabel = "DIR", required = true,
            description = "The warehouse directory of a Paimon file-system catalog.")
    Path warehouse;

    @Option(names = "--older-than", paramLabel = "DURATION", defaultValue = "1d",
            description = "Only files modified longer ago than this: a number and a unit, ms, s, m, h or d (0s, 90s,"
                    + " 10m, 2h, 1d). Default: ${DEFAULT-VALUE}, Paimon's own margin.")
    String olderThan;

    @Option(names = "--dry-run", description = "List the orphan files, delete nothing.")
    boolean dryRun;

    @Option(names = "--json", description = "Print the report as one JSON object (keys in docs/cli.md).")
    boolean json;

    /** One table's outcome: the clean's result, or why it failed. */
    private record TableRun(String table, OrphanFiles.Result result, String error, boolean environment) {}

    @Override
    public Integer call() {
        Duration margin = margin();
        Path dir = warehouseDir();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        long cutoff = System.currentTimeMillis() - margin.toMillis();
        List<TableRun> runs = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        boolean environment = false;
        try (Catalog catalog = CatalogFactory.createCatalog(
                CatalogContext.create(PaimonPaths.of(dir)))) {
            for (String database : catalog.listDatabases()) {
                for (String name : catalog.listTables(database)) {
                    runs.add(cleanTable(catalog, Identifier.create(database, name), margin));
                }
            }
        } catch (Exception e) {
            errors.add(describe(e));
            environment = environmental(e);
        }
        List<String> tableErrors = new ArrayList<>();
        for (TableRun run : runs) {
            if (run.error != null) {
                tableErrors.add(run.table + ": " + run.error);
                environment |= run.environment;
            }
        }
        errors.addAll(0, tableErrors);
        errors.forEach(e -> err.println("error: " + e));
        String error = errors.isEmpty() ? null : errors.get(0);
        out.print(json ? Json.write(report(dir, margin, runs, error)) + System.lineSeparator()
                : text(dir, margin, cutoff, runs));
        out.flush();
        if (error == null) {
            return GovernanceCli.EXIT_OK;
        }
        return environment ? GovernanceCli.EXIT_ENVIRONMENT : GovernanceCli.EXIT_FAILURE;
    }

    private TableRun cleanTable(Catalog catalog, Identifier id, Duration margin) {
        String name = id.getFullName();
        try {
            Table table = catalog.getTable(id);
            if (!(table instanceof FileStoreTable fileStore)) {
                return new TableRun(name, null, null, false);
            }
            OrphanFiles.Result result = OrphanFiles.clean(fileStore, margin, dryRun);
            if (!result.notDeleted().isEmpty()) {
                String first = result.notDeleted().get(0);
                return new TableRun(name, result, result.notDeleted().size() + " orphan files could not be deleted, e.g. "
                        + first + whyNotDeleted(first), true);
            }
            return new TableRun(name, result, null, false);
        } catch (Exception e) {
            return new TableRun(name, null, describe(e), environmental(e));
        }
    }

    /** The likely reason a file could not be deleted, for a local path. */
    private static String whyNotDeleted(String path) {
        try {
            Path parent = Path.of(java.net.URI.create(path)).getParent();
            return parent != null && !Files.isWritable(parent) ? " (permission denied: " + parent + " is not writable)" : "";
        } catch (RuntimeException notLocal) {
            return "";
        }
    }

    private Duration margin() {
        try {
            return Durations.parse("--older-than", olderThan);
        } catch (IllegalArgumentException e) {
            throw invalid("--older-than", e.getMessage());
        }
    }

    private Path warehouseDir() {
        Path dir = warehouse.toAbsolutePath().normalize();
        if (!Files.exists(dir)) {
            throw invalid("--warehouse", "'" + warehouse + "' does not exist");
        }
        if (!Files.isDirectory(dir)) {
            throw invalid("--warehouse", "'" + warehouse + "' is not a directory");
        }
        return dir;
    }

    private ParameterException invalid(String option, String message) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + message);
    }

    /**
     * Whether {@code e} comes from the environment: one {@link RootCause} names (no space, read-only,
     * permission denied, out of memory), or any other I/O error anywhere in its causes, such as a
     * manifest that cannot be read.
     */
    static boolean environmental(Throwable e) {
        if (RootCause.of(e, RootCause.Memory.of(-1), List.of()).kind() == RootCause.Kind.ENVIRONMENT) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IOException || t instanceof UncheckedIOException) {
                return true;
            }
        }
        return false;
    }

    /** The failure with its root cause, never only a wrapper's message ({@link RootCause}). */
    static String describe(Throwable e) {
        return RootCause.of(e, RootCause.Memory.of(-1), List.of()).message();
    }

    private Map<String, Object> report(Path dir, Duration margin, List<TableRun> runs, String error) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("warehouse", dir.toString());
        json.put("dryRun", dryRun);
        json.put("olderThanMillis", margin.toMillis());
        List<Object> tables = new ArrayList<>();
        long files = 0;
        long bytes = 0;
        for (TableRun run : runs) {
            OrphanFiles.Result r = run.result;
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("table", run.table);
            t.put("orphanFiles", r == null ? 0L : (long) r.files());
            t.put("orphanBytes", r == null ? 0L : r.bytes());
            t.put("deleted", r != null && !dryRun && run.error == null);
            t.put("paths", r == null ? List.of() : r.paths());
            t.put("notDeleted", r == null ? List.of() : r.notDeleted());
            t.put("error", run.error);
            tables.add(t);
            files += r == null ? 0 : r.files();
            bytes += r == null ? 0 : r.bytes();
        }
        json.put("tables", tables);
        json.put("orphanFiles", files);
        json.put("orphanBytes", bytes);
        json.put("error", error);
        return json;
    }

    private String text(Path dir, Duration margin, long cutoff, List<TableRun> runs) {
        StringBuilder sb = new StringBuilder();
        sb.append("clean: warehouse ").append(dir).append(", files older than ").append(Durations.format(margin))
                .append(" (modified before ").append(Instant.ofEpochMilli(cutoff)).append(")")
                .append(dryRun ? ", dry run: nothing is deleted" : "").append(System.lineSeparator());
        int width = runs.stream().mapToInt(r -> r.table.length()).reduce(5, Math::max);
        String row = "%-" + width + "s  %6s  %10s  %s%n";
        sb.append(String.format(row, "TABLE", "FILES", "BYTES", ""));
        long files = 0;
        long bytes = 0;
        for (TableRun run : runs) {
            OrphanFiles.Result r = run.result;
            String status = run.error != null ? "FAILED: " + run.error
                    : r == null ? "not a file-store table, skipped"
                    : r.files() == 0 ? "" : dryRun ? "would be deleted" : "deleted";
            sb.append(String.format(row, run.table, r == null ? "-" : Integer.toString(r.files()),
                    r == null ? "-" : DemoReport.bytes(r.bytes()), status));
            if (r != null) {
                r.paths().forEach(p -> sb.append("    ").append(p).append(System.lineSeparator()));
                files += r.files();
                bytes += r.bytes();
            }
        }
        sb.append(String.format("%d orphan files, %s, in %d tables%s%n", files, DemoReport.bytes(bytes), runs.size(),
                dryRun ? " (dry run: nothing deleted)" : ""));
        return sb.toString();
    }
}
