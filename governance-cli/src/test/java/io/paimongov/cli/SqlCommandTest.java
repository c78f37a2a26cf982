package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sql} on both embedded engines, run as a user runs it: statements from {@code -e} or a
 * file, JSON lines on stdout (each parsed by a strict reader), what each query returned compared
 * with the rows the statements inserted, each write's governance reported and clean after close, a
 * table written through one engine read through the other, and the errors: a failing statement
 * names itself (exit 1), bad arguments exit 2.
 */
class SqlCommandTest {

    @TempDir Path dir;

    /** The lines of stdout, each one JSON object. */
    private static List<JsonNode> lines(CliRun run) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : run.out().split("\n")) {
            if (!line.isBlank()) {
                lines.add(Json.parse(line));
            }
        }
        return lines;
    }

    private static List<String> rows(JsonNode statement) {
        List<String> rows = new ArrayList<>();
        statement.get("rows").forEach(r -> rows.add(r.toString()));
        return rows;
    }

    @Test
    void flinkRunsDdlWritesAndQueriesAndReportsTheGovernedWrite() throws Exception {
        CliRun run = CliRun.of("sql", "--engine", "flink", "--json", "-e",
                "CREATE DATABASE shop; USE shop;"
                        + " CREATE TABLE t (k INT, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2');"
                        + " INSERT INTO t VALUES (1, 'a'), (2, 'b'), (1, 'c');"
                        + " SELECT k, v FROM t ORDER BY k");
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> lines = lines(run);
        assertThat(lines).hasSize(5);
        assertThat(lines.get(3).get("statement").asText()).isEqualTo("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (1, 'c')");
        assertThat(lines.get(3).get("kind").asText()).isEqualTo("dml");
        JsonNode governance = lines.get(3).get("governance");
        assertThat(governance.get("writes").asLong()).isPositive();
        assertThat(governance.get("inputRows").asLong()).isEqualTo(3);
        assertThat(governance.get("reservedAfterClose").asLong()).isZero();
        assertThat(governance.get("spillFilesLeft").asLong()).isZero();
        assertThat(governance.get("budgetBytes").asLong()).isPositive();
        assertThat(lines.get(4).get("columns").toString()).isEqualTo("[\"k\",\"v\"]");
        assertThat(rows(lines.get(4))).containsExactly("[1,\"c\"]", "[2,\"b\"]");
    }

    @Test
    void sparkRunsAScriptFileAndATableWrittenByOneEngineIsReadByTheOther() throws Exception {
        Path warehouse = dir.resolve("wh");
        Path script = dir.resolve("spark.sql");
        Files.writeString(script, """
                CREATE DATABASE shop;
                CREATE TABLE shop.orders (id INT, item STRING, dt STRING) PARTITIONED BY (dt)
                  TBLPROPERTIES ('primary-key' = 'dt,id', 'bucket' = '2');
                INSERT INTO shop.orders VALUES (1, 'tea', 'd1'), (2, 'cup', 'd1'), (1, 'pot', 'd2');
                INSERT INTO shop.orders VALUES (2, 'mug', 'd1');
                SELECT id, item, dt FROM shop.orders ORDER BY dt, id;
                """);
        CliRun spark = CliRun.of("sql", "--engine", "spark", "--warehouse", warehouse.toString(), "--json", "-f", script.toString());
        assertThat(spark.exitCode()).as(spark.err()).isZero();
        List<JsonNode> lines = lines(spark);
        assertThat(lines).hasSize(5);
        assertThat(lines.get(2).get("governance").get("inputRows").asLong()).isEqualTo(3);
        assertThat(lines.get(2).get("governance").get("reservedAfterClose").asLong()).isZero();
        List<String> expected = List.of("[1,\"tea\",\"d1\"]", "[2,\"mug\",\"d1\"]", "[1,\"pot\",\"d2\"]");
        assertThat(rows(lines.get(4))).containsExactlyElementsOf(expected);

        CliRun flink = CliRun.of("sql", "--engine", "flink", "--warehouse", warehouse.toString(), "--json", "-e",
                "SELECT id, item, dt FROM shop.orders ORDER BY dt, id;"
                        + " INSERT INTO shop.orders VALUES (3, 'jar', 'd2');");
        assertThat(flink.exitCode()).as(flink.err()).isZero();
        assertThat(rows(lines(flink).get(0))).as("Spark's rows through Flink").containsExactlyElementsOf(expected);

        CliRun back = CliRun.of("sql", "--engine", "spark", "--warehouse", warehouse.toString(), "--json", "-e",
                "SELECT id, item, dt FROM shop.orders WHERE dt = 'd2' ORDER BY id");
        assertThat(back.exitCode()).as(back.err()).isZero();
        assertThat(rows(lines(back).get(0))).as("Flink's row through Spark")
                .containsExactly("[1,\"pot\",\"d2\"]", "[3,\"jar\",\"d2\"]");
    }

    @Test
    void flinkSwitchesToStreamingAndBackWithSet() throws Exception {
        CliRun run = CliRun.of("sql", "--engine", "flink", "--json", "-e",
                "CREATE TABLE log (k INT, v STRING);"
                        + " SET 'execution.runtime-mode' = 'streaming';"
                        + " SET 'execution.checkpointing.interval' = '500ms';"
                        + " INSERT INTO log VALUES (1, 'x'), (2, 'y');"
                        + " SET 'execution.runtime-mode' = 'batch';"
                        + " SELECT k, v FROM log ORDER BY k");
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> lines = lines(run);
        assertThat(lines.get(3).get("governance").get("inputRows").asLong()).isEqualTo(2);
        assertThat(rows(lines.get(5))).containsExactly("[1,\"x\"]", "[2,\"y\"]");
    }

    @Test
    void aFailingStatementNamesItselfAndStopsTheRun() throws Exception {
        CliRun run = CliRun.of("sql", "--engine", "flink", "--json", "-e",
                "CREATE TABLE t (k INT); SELECT * FROM missing_table; CREATE TABLE never (k INT)");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("statement 2 failed: SELECT * FROM missing_table");
        List<JsonNode> lines = lines(run);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1).get("error").asText()).contains("statement 2 failed");
    }

    @Test
    void badArgumentsExitTwoNamingTheOption() throws Exception {
        assertThat(CliRun.of("sql", "--engine", "flink").err()).contains("-e");
        assertThat(CliRun.of("sql", "--engine", "flink").exitCode()).isEqualTo(2);
        CliRun engine = CliRun.of("sql", "--engine", "hive", "-e", "SELECT 1");
        assertThat(engine.exitCode()).isEqualTo(2);
        assertThat(engine.err()).contains("--engine").contains("hive");
        CliRun provider = CliRun.of("sql", "--engine", "spark", "--provider", "heap", "-e", "SELECT 1");
        assertThat(provider.exitCode()).isEqualTo(2);
        assertThat(provider.err()).contains("--provider").contains("heap");
        CliRun file = CliRun.of("sql", "--engine", "flink", "-f", dir.resolve("none.sql").toString());
        assertThat(file.exitCode()).isEqualTo(2);
        assertThat(file.err()).contains("-f").contains("no such file");
        CliRun quote = CliRun.of("sql", "--engine", "flink", "-e", "SELECT 'x");
        assertThat(quote.exitCode()).isEqualTo(2);
        assertThat(quote.err()).contains("never closed");
        CliRun option = CliRun.of("sql", "--engine", "flink", "--catalog-option", "nokey", "-e", "SELECT 1");
        assertThat(option.exitCode()).isEqualTo(2);
        assertThat(option.err()).contains("--catalog-option");
    }
}
