package io.paimongov.cli;

import io.paimongov.runtime.tables.PaimonPaths;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Flink SQL on an embedded cluster (a local environment: one task manager, {@value #PARALLELISM}
 * slots, the given managed memory) with the catalog {@value SqlEngine#CATALOG} of type {@code
 * paimon-governed} on the warehouse, current from the start. Batch mode unless a statement {@code
 * SET 'execution.runtime-mode' = 'streaming'} says otherwise; the session (catalogs, temporary
 * objects, functions, the current catalog and database) outlives a change of mode ({@link
 * FlinkSession}). Every other {@code SET 'key' = 'value'} goes into the table configuration, as in
 * Flink's SQL client; {@code SET} alone lists it.
 *
 * <p>A DML statement runs its job to the end; its governed writers' and assigners' metrics come
 * from the cluster's metric system ({@link FlinkGauges}). A statement set runs as one job, in
 * either of Flink's forms ({@code EXECUTE STATEMENT SET BEGIN ...; END} or {@code BEGIN STATEMENT
 * SET; ...; END}). A query that runs a job in streaming mode returns a changelog: its rows come
 * with their kind in a first column {@value #OP} ({@code +I}, {@code -U}, {@code +U}, {@code -D}),
 * as Flink's SQL client prints them.
 */
final class FlinkSqlEngine implements SqlEngine {

    static final int PARALLELISM = 2;
    /** The column of a streaming query's row kinds. */
    static final String OP = "op";
    private static final Pattern SET = Pattern.compile(
            "(?is)SET\\s*(?:(['\"`]?)(.+?)\\1\\s*=\\s*(['\"`]?)(.*?)\\3)?\\s*");

    private final FlinkSession session;
    private boolean closed;

    /**
     * @param catalogOptions more options of the governed catalog ({@code governance.*} defaults)
     * @param managedMemory the task manager's managed memory in bytes
     * @throws IllegalArgumentException naming the option when the catalog refuses {@code catalogOptions}
     */
    FlinkSqlEngine(Path warehouse, Map<String, String> catalogOptions, long managedMemory) {
        Configuration cluster = new Configuration();
        cluster.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, new MemorySize(managedMemory));
        cluster.set(CoreOptions.DEFAULT_PARALLELISM, PARALLELISM);
        FlinkGauges.configure(cluster);
        this.session = new FlinkSession(cluster);
        StringBuilder with = new StringBuilder("'type' = 'paimon-governed', 'warehouse' = ")
                .append(SqlEngine.literal(PaimonPaths.option(warehouse)));
        catalogOptions.forEach((k, v) -> with.append(", ").append(SqlEngine.literal(k)).append(" = ").append(SqlEngine.literal(v)));
        try {
            session.tables().executeSql("CREATE CATALOG " + CATALOG + " WITH (" + with + ")");
        } catch (RuntimeException e) {
            session.close();
            throw SqlEngine.refusedOptions(e);
        }
        session.tables().useCatalog(CATALOG);
    }

    @Override
    public String name() {
        return "flink";
    }

    @Override
    public Result execute(String statement) throws Exception {
        long start = System.nanoTime();
        Matcher set = SET.matcher(statement);
        if (set.matches()) {
            return set(set.group(2), set.group(4), start);
        }
        String verb = SqlScript.verb(statement);
        StreamTableEnvironment sql = session.tables();
        TableResult result = sql.executeSql(SqlScript.asExecuteStatementSet(statement).orElse(statement));
        switch (verb) {
            case "INSERT", "EXECUTE", "DELETE", "UPDATE", "BEGIN" -> {
                Optional<JobClient> job = result.getJobClient();
                result.await();
                WriteSummary governance = job.map(j -> FlinkGauges.take(j.getJobID().toString())).orElse(null);
                return new Result(Kind.DML, List.of(), List.of(), governance, millisSince(start));
            }
            case "USE" -> {
                return new Result(Kind.SET, List.of(), List.of(), null, millisSince(start));
            }
            default -> {
                if (!returnsRows(verb)) {
                    result.await();
                    return new Result(Kind.DDL, List.of(), List.of(), null, millisSince(start));
                }
                return rows(result, session.streaming() && result.getJobClient().isPresent(), start);
            }
        }
    }

    private static boolean returnsRows(String verb) {
        return switch (verb) {
            case "SELECT", "WITH", "VALUES", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "(" -> true;
            default -> false;
        };
    }

    /** The result's rows; with {@code changelog}, each row's kind first, in the column {@value #OP}. */
    private static Result rows(TableResult result, boolean changelog, long start) throws Exception {
        List<String> columns = new ArrayList<>();
        if (changelog) {
            columns.add(OP);
        }
        columns.addAll(result.getResolvedSchema().getColumnNames());
        List<List<Object>> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                List<Object> values = new ArrayList<>(row.getArity() + 1);
                if (changelog) {
                    values.add(row.getKind().shortString());
                }
                for (int i = 0; i < row.getArity(); i++) {
                    values.add(SqlValues.plain(row.getField(i)));
                }
                rows.add(values);
            }
        }
        return new Result(Kind.QUERY, columns, rows, null, millisSince(start));
    }

    /** {@code SET 'key' = 'value'} into the session; {@code SET} alone lists the table configuration. */
    private Result set(String key, String value, long start) {
        if (key == null) {
            List<List<Object>> rows = new ArrayList<>();
            session.tables().getConfig().getConfiguration().toMap().forEach((k, v) -> rows.add(List.of(k, v)));
            rows.sort((a, b) -> ((String) a.get(0)).compareTo((String) b.get(0)));
            return new Result(Kind.QUERY, List.of("key", "value"), rows, null, millisSince(start));
        }
        session.set(key.trim(), value);
        return new Result(Kind.SET, List.of(), List.of(), null, millisSince(start));
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            session.close();
        }
    }
}
