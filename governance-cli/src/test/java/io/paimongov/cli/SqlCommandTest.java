package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sql} on both embedded engines, run as a user runs it: statements from {@code -e} or a
 * file, JSON lines on stdout (each parsed by a strict reader), what each query returned compared
 * with the rows the statements inserted, each write's governance reported and clean after close, a
 * table written through one engine read through the other, Flink's session across a change of
 * runtime mode, its statement sets and its changelogs, and the errors: a failing statement names
 * itself (exit 1), bad arguments (a bad catalog option included) exit 2.
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
        // A name with every kind of character a URI escapes: both engines must find the tables there.
        Path warehouse = dir.resolve("wh").resolve(UserPaths.everyKind());
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
        assertThat(warehouse.resolve("shop.db").resolve("orders").resolve("snapshot")).isDirectory();
        UserPaths.onlyEntryOfItsParent(warehouse);
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
    void flinkKeepsTheSessionWhenTheRuntimeModeChanges() throws Exception {
        CliRun run = CliRun.of("sql", "--engine", "flink", "--json", "-e",
                "CREATE TEMPORARY TABLE src (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10',"
                        + " 'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '10');"
                        + " CREATE TEMPORARY VIEW evens AS SELECT k FROM src WHERE MOD(k, 2) = 0;"
                        + " CREATE TEMPORARY SYSTEM FUNCTION plus_one AS '" + PlusOne.class.getName() + "';"
                        + " CREATE TABLE t (k INT);"
                        + " CREATE VIEW default_catalog.default_database.tens AS SELECT k * 10 AS k FROM (VALUES (1), (2)) AS v(k);"
                        + " CREATE CATALOG mem WITH ('type' = 'generic_in_memory');"
                        + " USE CATALOG mem; CREATE DATABASE d; USE d;"
                        + " SET 'execution.runtime-mode' = 'streaming';"
                        + " SHOW CURRENT CATALOG; SHOW CURRENT DATABASE;"
                        + " INSERT INTO governed.`default`.t SELECT * FROM governed.`default`.src"
                        + "   UNION ALL SELECT plus_one(k) * 100 FROM governed.`default`.evens"
                        + "   UNION ALL SELECT k FROM default_catalog.default_database.tens;"
                        + " SET 'execution.runtime-mode' = 'batch';"
                        + " SELECT k FROM governed.`default`.t ORDER BY k");
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> lines = lines(run);
        assertThat(lines).hasSize(15);
        assertThat(rows(lines.get(10))).as("current catalog after the switch").containsExactly("[\"mem\"]");
        assertThat(rows(lines.get(11))).as("current database after the switch").containsExactly("[\"d\"]");
        List<String> expected = new ArrayList<>();
        for (int k = 1; k <= 10; k++) {
            expected.add("[" + k + "]");
        }
        for (int k = 2; k <= 10; k += 2) {
            expected.add("[" + (k + 1) * 100 + "]");
        }
        expected.addAll(List.of("[10]", "[20]"));
        assertThat(lines.get(12).get("governance").get("inputRows").asLong()).isEqualTo(expected.size());
        assertThat(rows(lines.get(14))).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aRuntimeModeThatIsNeitherStreamingNorBatchFailsNamingTheKeyAndItsValues() throws Exception {
        CliRun run = CliRun.of("sql", "--engine", "flink", "--json", "-e", "SET 'execution.runtime-mode' = 'stream'");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(lines(run).get(0).get("error").asText())
                .contains("statement 1 failed").contains("'execution.runtime-mode'").contains("'streaming' or 'batch'")
                .contains("'stream'");
    }

    @Test
    void aFlinkStreamingQueryGivesEachRowsKindAndABatchOneDoesNot() throws Exception {
        String query = "SELECT k, COUNT(*) AS c FROM (VALUES (1), (1), (2)) AS v(k) GROUP BY k";
        CliRun run = CliRun.of("sql", "--engine", "flink", "--json", "-e",
                query + "; SET 'execution.runtime-mode' = 'streaming'; " + query);
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> lines = lines(run);
        assertThat(lines.get(0).get("columns").toString()).isEqualTo("[\"k\",\"c\"]");
        JsonNode changelog = lines.get(2);
        assertThat(changelog.get("columns").toString()).isEqualTo("[\"op\",\"k\",\"c\"]");
        // The changelog applied in order ends at the batch result; key 1 counts up through a retraction.
        Map<String, String> state = new TreeMap<>();
        List<String> keyOne = new ArrayList<>();
        for (JsonNode row : changelog.get("rows")) {
            String op = row.get(0).asText();
            String key = row.get(1).toString();
            String value = "[" + key + "," + row.get(2) + "]";
            switch (op) {
                case "+I", "+U" -> state.put(key, value);
                case "-U", "-D" -> assertThat(state.remove(key)).as(op + " retracts the row it follows").isEqualTo(value);
                default -> throw new AssertionError("not a row kind: " + op);
            }
            if (key.equals("1")) {
                keyOne.add(op + value);
            }
        }
        assertThat(state.values()).containsExactlyInAnyOrderElementsOf(rows(lines.get(0)));
        assertThat(keyOne).containsExactly("+I[1,1]", "-U[1,1]", "+U[1,2]");

        CliRun text = CliRun.of("sql", "--engine", "flink", "-e", "SET 'execution.runtime-mode' = 'streaming'; " + query);
        assertThat(text.exitCode()).as(text.err()).isZero();
        assertThat(text.out()).contains("| op | k | c |").contains("| -U | 1 | 1 |").contains("| +U | 1 | 2 |");
    }

    @Test
    void flinkRunsBothFormsOfAStatementSetAsOneJobAndCountsEveryWriterOfTablesNamedAlike() throws Exception {
        CliRun run = CliRun.of("sql", "--engine", "flink", "--json", "-e",
                "CREATE DATABASE db1; CREATE DATABASE db2;"
                        + " CREATE TABLE db1.t (k INT, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2');"
                        + " CREATE TABLE db2.t (k INT, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2');"
                        + " BEGIN STATEMENT SET;"
                        + "   INSERT INTO db1.t VALUES (1, 'a'), (2, 'b'), (3, 'c');"
                        + "   INSERT INTO db2.t VALUES (1, 'x'), (2, 'y'), (3, 'z'), (4, 'w');"
                        + " END;"
                        + " EXECUTE STATEMENT SET BEGIN"
                        + "   INSERT INTO db1.t VALUES (4, 'd');"
                        + "   INSERT INTO db2.t VALUES (5, 'v'), (6, 'u');"
                        + " END;"
                        + " SELECT k, v FROM db1.t ORDER BY k; SELECT k, v FROM db2.t ORDER BY k");
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> lines = lines(run);
        assertThat(lines).hasSize(8);
        JsonNode begin = lines.get(4).get("governance");
        assertThat(lines.get(4).get("kind").asText()).isEqualTo("dml");
        assertThat(begin.get("inputRows").asLong()).as("rows of both tables' writers").isEqualTo(7);
        assertThat(lines.get(5).get("governance").get("inputRows").asLong()).isEqualTo(3);
        assertThat(lines.get(5).get("governance").get("writes").asLong()).isEqualTo(begin.get("writes").asLong());
        assertThat(rows(lines.get(6))).containsExactly("[1,\"a\"]", "[2,\"b\"]", "[3,\"c\"]", "[4,\"d\"]");
        assertThat(rows(lines.get(7)))
                .containsExactly("[1,\"x\"]", "[2,\"y\"]", "[3,\"z\"]", "[4,\"w\"]", "[5,\"v\"]", "[6,\"u\"]");
    }

    @ParameterizedTest
    @ValueSource(strings = {"flink", "spark"})
    void aBadGovernanceCatalogOptionExitsTwoNamingTheKey(String engine) throws Exception {
        CliRun runtimeKey = CliRun.of("sql", "--engine", engine, "--catalog-option", "governance.memory.budgit=32m",
                "--json", "-e", "SELECT 1");
        assertThat(runtimeKey.exitCode()).isEqualTo(2);
        assertThat(runtimeKey.err()).contains("--catalog-option").contains("'governance.memory.budgit'");
        assertThat(runtimeKey.out()).isEmpty();
        CliRun badValue = CliRun.of("sql", "--engine", engine, "--catalog-option", "governance.memory.budget=lots",
                "-e", "SELECT 1");
        assertThat(badValue.exitCode()).isEqualTo(2);
        assertThat(badValue.err()).contains("--catalog-option").contains("'governance.memory.budget'").contains("lots");
        // The engine's own keys are the catalog's to judge: refused when the engine registers it.
        CliRun providerKey = CliRun.of("sql", "--engine", engine, "--catalog-option", "governance." + engine + ".nope=1",
                "--json", "-e", "SELECT 1");
        assertThat(providerKey.exitCode()).as(providerKey.err()).isEqualTo(2);
        assertThat(providerKey.err()).contains("--catalog-option").contains("'governance." + engine + ".nope'");
        assertThat(providerKey.out()).isEmpty();
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
        CliRun memory = CliRun.of("sql", "--engine", "spark", "--managed-memory", "512m", "-e", "SELECT 1");
        assertThat(memory.exitCode()).isEqualTo(2);
        assertThat(memory.err()).contains("--managed-memory").contains("flink only");
        CliRun size = CliRun.of("sql", "--engine", "flink", "--managed-memory", "lots", "-e", "SELECT 1");
        assertThat(size.exitCode()).isEqualTo(2);
        assertThat(size.err()).contains("--managed-memory").contains("'lots'");
    }
}
