package io.paimongov.cli;

import io.paimongov.connector.spark.GovernedWriteReport;
import io.paimongov.connector.spark.GovernedWriteReports;
import io.paimongov.connector.spark.sql.GovernedSparkCatalog;
import io.paimongov.runtime.tables.PaimonPaths;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark SQL on a local session ({@code local[2]}) with the catalog {@value SqlEngine#CATALOG}
 * ({@link GovernedSparkCatalog}) on the warehouse as the session's default catalog, {@code
 * spark.sql.shuffle.partitions} {@value #PARTITIONS} (so a write runs on as many channels). {@code
 * SET}, {@code USE}, DDL, DML and queries are Spark's own; a DML statement's governed writes report
 * through Spark's named accumulators ({@link GovernedWriteReports}).
 */
final class SparkSqlEngine implements SqlEngine {

    static final int PARTITIONS = 2;
    /** How long to wait for Spark's listener bus to deliver a statement's task ends. */
    private static final Duration LISTENER_WAIT = Duration.ofSeconds(30);

    private final SparkSession spark;
    private final GovernedWriteReports reports;

    /**
     * Starts the session and loads the catalog.
     *
     * @param catalogOptions more options of the governed catalog ({@code governance.*} defaults)
     * @throws IllegalArgumentException naming the option when the catalog refuses {@code catalogOptions}
     */
    SparkSqlEngine(Path warehouse, Map<String, String> catalogOptions) {
        String prefix = "spark.sql.catalog." + CATALOG;
        SparkSession.Builder builder = SparkSession.builder()
                .master("local[" + PARTITIONS + "]")
                .appName("paimon-governance sql")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", Integer.toString(PARTITIONS))
                .config(prefix, GovernedSparkCatalog.class.getName())
                .config(prefix + ".warehouse", PaimonPaths.option(warehouse))
                .config("spark.sql.defaultCatalog", CATALOG);
        catalogOptions.forEach((k, v) -> builder.config(prefix + "." + k, v));
        this.spark = builder.getOrCreate();
        try {
            // Spark loads a catalog when first used: the current database is the default catalog's.
            spark.catalog().currentDatabase();
        } catch (RuntimeException e) {
            spark.stop();
            throw SqlEngine.refusedOptions(e);
        }
        this.reports = GovernedWriteReports.register(spark);
    }

    @Override
    public String name() {
        return "spark";
    }

    @Override
    public Result execute(String statement) throws Exception {
        long start = System.nanoTime();
        String verb = SqlScript.verb(statement);
        return switch (verb) {
            case "INSERT", "MERGE", "DELETE", "UPDATE" -> {
                GovernedWriteReports.Mark mark = reports.mark(LISTENER_WAIT);
                spark.sql(statement);
                GovernedWriteReport report = reports.since(mark, LISTENER_WAIT);
                yield new Result(Kind.DML, List.of(), List.of(), summary(report), millisSince(start));
            }
            case "SELECT", "WITH", "VALUES", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "TABLE", "FROM", "(" ->
                    rows(Kind.QUERY, spark.sql(statement), start);
            case "SET", "RESET", "USE" -> rows(Kind.SET, spark.sql(statement), start);
            default -> {
                spark.sql(statement);
                yield new Result(Kind.DDL, List.of(), List.of(), null, millisSince(start));
            }
        };
    }

    private static Result rows(Kind kind, Dataset<Row> result, long start) {
        List<List<Object>> rows = new ArrayList<>();
        for (Row row : result.collectAsList()) {
            List<Object> values = new ArrayList<>(row.length());
            for (int i = 0; i < row.length(); i++) {
                values.add(SqlValues.plain(java(row.get(i))));
            }
            rows.add(values);
        }
        return new Result(kind, Arrays.asList(result.columns()), rows, null, millisSince(start));
    }

    /** Spark's Scala collections and nested rows as Java ones, for {@link SqlValues}. */
    private static Object java(Object value) {
        if (value instanceof scala.collection.Map<?, ?> map) {
            Map<Object, Object> copy = new LinkedHashMap<>();
            CollectionConverters.asJava(map).forEach((k, v) -> copy.put(java(k), java(v)));
            return copy;
        }
        if (value instanceof scala.collection.Iterable<?> seq) {
            List<Object> copy = new ArrayList<>();
            CollectionConverters.asJava(seq).forEach(v -> copy.add(java(v)));
            return copy;
        }
        if (value instanceof Row row) {
            List<Object> copy = new ArrayList<>(row.length());
            for (int i = 0; i < row.length(); i++) {
                copy.add(java(row.get(i)));
            }
            return copy;
        }
        return value;
    }

    /** The report's numbers as the command prints them; Spark's writes report no assigners. */
    static WriteSummary summary(GovernedWriteReport report) {
        return new WriteSummary(report.writes(), 0, report.budgetBytes(), report.peakReservedBytes(), report.spillCount(),
                report.spillFiles(), report.spillBytes(), report.spillFilesLeft(), report.reservedBytes(),
                report.outputFiles(), report.outputBytes(), report.inputRows(), report.flushCount());
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Override
    public void close() {
        reports.close();
        spark.stop();
    }
}
