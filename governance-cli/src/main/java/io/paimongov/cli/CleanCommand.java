package io.paimongov.cli;

import io.paimongov.runtime.config.Durations;
import io.paimongov.runtime.orphans.OrphanFiles;
import io.paimongov.runtime.tables.DamagedTableException;
import io.paimongov.runtime.tables.PaimonPaths;
import io.paimongov.runtime.tables.TableCheck;
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
import java.util.stream.Stream;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.fs.local.LocalFileIO;
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
 * ({@link OrphanFiles}); {@code --dry-run} only lists them. Each table is checked first ({@link
 * TableCheck}): a damaged one is reported with its file and left as it is. docs/cli.md has the
 * output and the exit codes: 0 done, 2 bad arguments (stdout empty; also a directory that is no
 * warehouse), 4 a damaged table or an I/O failure such as a directory it may not read or a file it
 * could not delete (every other table is still cleaned; the report says which failed), 3 anything
 * else.
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
            "2:bad arguments (also a --warehouse that is no warehouse)",
            "3:an internal failure (the error is printed)",
            "4:a damaged table (left as it is; the file is named), or an I/O failure: a directory that cannot be read,"
                    + " a file that could not be deleted",
            "130:stopped by SIGINT (Ctrl-C)",
            "143:stopped by SIGTERM"
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

    /** What to do about a damaged table, which clean leaves as it is. */
    static final String DAMAGE_ADVICE = "nothing of this table was deleted; restore the file from a backup, or drop the"
            + " table and write it again";

    /**
     * One table's outcome: the clean's result, or why it failed.
     *
     * @param damagedFile the file that makes the table damaged ({@link TableCheck}); null when it is not
     */
    private record TableRun(String table, OrphanFiles.Result result, String error, boolean environment,
            String damagedFile) {

        TableRun(String table, OrphanFiles.Result result, String error, boolean environment) {
            this(table, result, error, environment, null);
        }
    }

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
                    runs.add(cleanTable(catalog, dir, Identifier.create(database, name), margin));
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

    private TableRun cleanTable(Catalog catalog, Path warehouse, Identifier id, Duration margin) {
        String name = id.getFullName();
        try {
            Table table;
            try {
                table = catalog.getTable(id);
            } catch (RuntimeException | Catalog.TableNotExistException cannotOpen) {
                // A schema file that does not parse: the table cannot be opened at all.
                TableCheck.verifySchemas(LocalFileIO.create(),
                        PaimonPaths.of(warehouse.resolve(id.getDatabaseName() + ".db").resolve(id.getObjectName())), name);
                throw cannotOpen;
            }
            if (!(table instanceof FileStoreTable fileStore)) {
                return new TableRun(name, null, null, false);
            }
            // A table a reader cannot read is reported as damaged, not as one with "0 orphan files";
            // the clean itself checks the metadata it relies on (OrphanFiles).
            TableCheck.verifyLiveFiles(fileStore);
            OrphanFiles.Result result = OrphanFiles.clean(fileStore, margin, dryRun);
            if (!result.notDeleted().isEmpty()) {
                String first = result.notDeleted().get(0);
                return new TableRun(name, result, result.notDeleted().size() + " orphan files could not be deleted, e.g. "
                        + first + whyNotDeleted(first), true);
            }
            return new TableRun(name, result, null, false);
        } catch (DamagedTableException e) {
            return new TableRun(name, null, e.damage() + "; " + DAMAGE_ADVICE, true, e.file());
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
        DirOption.require(spec, "--warehouse", warehouse);
        Path dir = warehouse.toAbsolutePath().normalize();
        if (!Files.exists(dir)) {
            throw invalid("--warehouse", "'" + warehouse + "' does not exist");
        }
        String notAWarehouse = notAWarehouse(dir);
        if (notAWarehouse != null) {
            throw invalid("--warehouse", notAWarehouse);
        }
        return dir;
    }

    /**
     * Why {@code dir} is no file-system catalog's warehouse, or null when it is one: a warehouse
     * holds a directory {@code NAME.db} per database (an empty directory is one without any). A
     * table's or a database's directory is named as such, with the warehouse to give instead. A
     * directory that cannot be listed passes: the clean then fails on it, naming the cause.
     */
    static String notAWarehouse(Path dir) {
        if (Files.isDirectory(dir.resolve("schema"))) {
            Path database = dir.getParent();
            return "'" + dir + "' is a table's directory (it holds schema/), not a warehouse"
                    + (database != null && database.getParent() != null && isDatabase(database)
                            ? "; its warehouse is '" + database.getParent() + "'" : "");
        }
        if (isDatabase(dir) && dir.getParent() != null) {
            return "'" + dir + "' is a database's directory, not a warehouse; its warehouse is '" + dir.getParent() + "'";
        }
        try (Stream<Path> entries = Files.list(dir)) {
            List<Path> all = entries.toList();
            if (all.isEmpty() || all.stream().anyMatch(CleanCommand::isDatabase)) {
                return null;
            }
        } catch (IOException | UncheckedIOException cannotList) {
            return null;
        }
        return "'" + dir + "' is not a Paimon warehouse: it holds no database directory (NAME.db)";
    }

    private static boolean isDatabase(Path dir) {
        Path name = dir.getFileName();
        return name != null && name.toString().endsWith(".db") && Files.isDirectory(dir);
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
            t.put("damaged", run.damagedFile != null);
            t.put("damagedFile", run.damagedFile);
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
            String status = run.damagedFile != null ? "DAMAGED: " + run.error
                    : run.error != null ? "FAILED: " + run.error
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
        long damaged = runs.stream().filter(r -> r.damagedFile != null).count();
        sb.append(String.format("%d orphan files, %s, in %d tables%s%s%n", files, DemoReport.bytes(bytes), runs.size(),
                damaged == 0 ? "" : "; " + damaged + " damaged, left as they are",
                dryRun ? " (dry run: nothing deleted)" : ""));
        return sb.toString();
    }
}
