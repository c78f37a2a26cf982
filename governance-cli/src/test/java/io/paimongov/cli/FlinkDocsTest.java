package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code sql} block of docs/flink.md, in order, as one script through {@code sql --engine
 * flink}, as the page tells a reader to try them: each statement runs, and the two queries show
 * what the page says they show (order 1 at its last amount and order 2; {@code ada} in {@code us}
 * only). A block that stops working, or a query whose rows change, fails the build.
 */
class FlinkDocsTest {

    private static final Path PAGE = Path.of(System.getProperty("basedir", "."), "..", "docs", "flink.md").normalize();
    private static final Pattern BLOCK = Pattern.compile("```sql\\n(.*?)```", Pattern.DOTALL);

    @TempDir Path dir;

    @Test
    void everySqlBlockOfThePageRunsAndTheQueriesShowWhatItSays() throws Exception {
        String page = Files.readString(PAGE);
        StringBuilder script = new StringBuilder();
        Matcher block = BLOCK.matcher(page);
        int blocks = 0;
        while (block.find()) {
            script.append(block.group(1)).append(";\n");
            blocks++;
        }
        assertThat(blocks).as("sql blocks on the page").isGreaterThanOrEqualTo(4);
        String placeholder = "file:///tmp/paimon-governed-docs";
        assertThat(script.toString()).contains(placeholder);
        Path file = dir.resolve("flink.sql");
        Files.writeString(file, script.toString().replace(placeholder, dir.resolve("wh").toUri().toString()));

        CliRun run = CliRun.of("sql", "--engine", "flink", "--json", "-f", file.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<JsonNode> results = new ArrayList<>();
        for (String line : run.out().split("\n")) {
            if (!line.isBlank()) {
                JsonNode json = Json.parse(line);
                assertThat(json.get("error").isNull()).as(json.get("statement").asText()).isTrue();
                results.add(json);
            }
        }
        List<JsonNode> queries = results.stream().filter(r -> r.get("kind").asText().equals("query")).toList();
        assertThat(queries).hasSize(2);
        assertThat(rows(queries.get(0))).containsExactlyInAnyOrder("[1,\"ada\",13.75]", "[2,\"bob\",7.0]");
        assertThat(rows(queries.get(1))).containsExactlyInAnyOrder("[\"ada\",\"us\"]", "[\"bob\",\"us\"]");
        JsonNode overwrite = results.stream().filter(r -> r.get("statement").asText().startsWith("INSERT OVERWRITE"))
                .findFirst().orElseThrow();
        assertThat(overwrite.get("governance").get("inputRows").asLong()).isEqualTo(1);
    }

    private static List<String> rows(JsonNode query) {
        List<String> rows = new ArrayList<>();
        query.get("rows").forEach(r -> rows.add(r.toString()));
        return rows;
    }
}
