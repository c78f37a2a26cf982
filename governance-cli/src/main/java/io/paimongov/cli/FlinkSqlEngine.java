package io.paimongov.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Flink SQL on an embedded cluster (a local environment: one task manager, {@value #PARALLELISM}
 * slots, the given managed memory) with the catalog {@value SqlEngine#CATALOG} of type {@code
 * paimon-governed} on the warehouse, current from the start. Batch mode unless a statement {@code
 * SET 'execution.runtime-mode' = 'streaming'} says otherwise: that starts a new table environment
 * in the mode asked, with the catalog registered again and the current catalog and database kept.
 * Every other {@code SET 'key' = 'value'} goes into the table configuration, as in Flink's SQL
 * client; {@code SET} alone lists it.
 *
 * <p>A DML statement runs its job to the end; its governed writers' and assigners' metrics come
 * from the cluster's metric system ({@link FlinkGauges}).
 */
final class FlinkSqlEngine implements SqlEngine {

    static final int PARALLELISM = 2;
    private static final Pattern SET = Pattern.compile(
            "(?is)SET\\s*(?:(['\"`]?)(.+?)\\1\\s*=\\s*(['\"`]?)(.*?)\\3)?\\s*");

    private final Path warehouse;
    private final Map<String, String> catalogOptions;
    private final String managedMemory;
    private final Configuration settings = new Configuration();
    private RuntimeExecutionMode mode = RuntimeExecutionMode.BATCH;
    private StreamTableEnvironment sql;

    /**
     * @param catalogOptions more options of the governed catalog ({@code governance.*} defaults)
     * @param managedMemory the task manager's managed memory, e.g. {@code 256m}
     */
    FlinkSqlEngine(Path warehouse, Map<String, String> catalogOptions, String managedMemory) {
        this.warehouse = warehouse;
        this.catalogOptions = catalogOptions;
        this.managedMemory = managedMemory;
        this.sql = open(null, null);
    }

    @Override
    public String name() {
        return "flink";
    }

    private StreamTableEnvironment open(String catalog, String database) {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse(managedMemory));
        config.set(CoreOptions.DEFAULT_PARALLELISM, PARALLELISM);
        config.set(ExecutionOptions.RUNTIME_MODE, mode);
        FlinkGauges.configure(config);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(config);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env,
                mode == RuntimeExecutionMode.BATCH ? EnvironmentSettings.inBatchMode() : EnvironmentSettings.inStreamingMode());
        tables.getConfig().addConfiguration(settings);
        StringBuilder with = new StringBuilder("'type' = 'paimon-governed', 'warehouse' = '" + warehouse.toUri() + "'");
        catalogOptions.forEach((k, v) -> with.append(", '").append(k).append("' = '").append(v).append("'"));
        tables.executeSql("CREATE CATALOG " + CATALOG + " WITH (" + with + ")");
        tables.useCatalog(catalog == null ? CATALOG : catalog);
        if (database != null) {
            tables.useDatabase(database);
        }
        return tables;
    }

    @Override
    public Result execute(String statement) throws Exception {
        long start = System.nanoTime();
        Matcher set = SET.matcher(statement);
        if (set.matches()) {
            return set(set.group(2), set.group(4), start);
        }
        String verb = SqlScript.verb(statement);
        TableResult result = sql.executeSql(statement);
        switch (verb) {
            case "INSERT", "EXECUTE", "DELETE", "UPDATE", "BEGIN" -> {
                JobClient job = result.getJobClient().orElse(null);
                if (job == null) {
                    result.await();
                    return new Result(Kind.DML, List.of(), List.of(), null, millisSince(start));
                }
                result.await();
                return new Result(Kind.DML, List.of(), List.of(), FlinkGauges.take(job.getJobID().toString()), millisSince(start));
            }
            case "USE" -> {
                return new Result(Kind.SET, List.of(), List.of(), null, millisSince(start));
            }
            default -> {
                List<String> columns = result.getResolvedSchema().getColumnNames();
                if (!returnsRows(verb)) {
                    result.await();
                    return new Result(Kind.DDL, List.of(), List.of(), null, millisSince(start));
                }
                List<List<Object>> rows = new ArrayList<>();
                try (CloseableIterator<Row> it = result.collect()) {
                    while (it.hasNext()) {
                        Row row = it.next();
                        List<Object> values = new ArrayList<>(row.getArity());
                        for (int i = 0; i < row.getArity(); i++) {
                            values.add(SqlValues.plain(row.getField(i)));
                        }
                        rows.add(values);
                    }
                }
                return new Result(Kind.QUERY, columns, rows, null, millisSince(start));
            }
        }
    }

    private static boolean returnsRows(String verb) {
        return switch (verb) {
            case "SELECT", "WITH", "VALUES", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "(" -> true;
            default -> false;
        };
    }

    /** {@code SET 'key' = 'value'}: a new session for the runtime mode, the table configuration else. */
    private Result set(String key, String value, long start) {
        if (key == null) {
            List<List<Object>> rows = new ArrayList<>();
            sql.getConfig().getConfiguration().toMap().forEach((k, v) -> rows.add(List.of(k, v)));
            rows.sort((a, b) -> ((String) a.get(0)).compareTo((String) b.get(0)));
            return new Result(Kind.QUERY, List.of("key", "value"), rows, null, millisSince(start));
        }
        if (key.trim().equals(ExecutionOptions.RUNTIME_MODE.key())) {
            RuntimeExecutionMode asked = RuntimeExecutionMode.valueOf(value.trim().toUpperCase(Locale.ROOT));
            if (asked != mode) {
                mode = asked;
                String catalog = sql.getCurrentCatalog();
                String database = sql.getCurrentDatabase();
                sql = open(catalog, database);
            }
        } else {
            settings.setString(key.trim(), value);
            sql.getConfig().getConfiguration().setString(key.trim(), value);
        }
        return new Result(Kind.SET, List.of(), List.of(), null, millisSince(start));
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Override
    public void close() {
        sql = null;
    }
}
