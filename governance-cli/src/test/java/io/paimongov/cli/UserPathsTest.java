package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every path a user gives is the path used: {@code demo} and {@code clean} on a warehouse named with
 * each kind of character ({@link UserPaths}), and {@code tck} in a temp directory of every kind.
 * The engine demos, {@code sql} and {@code bench} run on such names in their own tests ({@code
 * DemoEnginesTest}, {@code SqlCommandTest}, {@code BenchCommandTest}).
 */
class UserPathsTest {

    @TempDir Path tmp;

    @ParameterizedTest
    @MethodSource("io.paimongov.cli.UserPaths#kinds")
    void demoAndCleanWorkInTheWarehouseNamed(String name) throws Exception {
        Path warehouse = tmp.resolve("parent").resolve(name);

        CliRun demo = CliRun.of("demo", "--rows", "2000", "--keys", "500", "--warehouse", warehouse.toString(), "--json");

        assertThat(demo.exitCode()).as(demo.err()).isZero();
        JsonNode report = demo.json();
        assertThat(report.get("verified").asBoolean()).isTrue();
        assertThat(report.get("warehouse").asText()).isEqualTo(warehouse.toString());
        assertThat(warehouse.resolve("demo.db").resolve("kv").resolve("snapshot").resolve("snapshot-1")).isRegularFile();
        UserPaths.onlyEntryOfItsParent(warehouse);

        // A file no snapshot references, two days old: clean must find it where it lies and delete it.
        Path orphan = warehouse.resolve("demo.db").resolve("kv").resolve("p=0").resolve("bucket-0")
                .resolve("data-planted-orphan-0.parquet");
        Files.write(orphan, new byte[] {1, 2, 3});
        Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(2))));

        CliRun clean = CliRun.of("clean", "--warehouse", warehouse.toString(), "--older-than", "1d", "--json");

        assertThat(clean.exitCode()).as(clean.err()).isZero();
        JsonNode cleaned = clean.json();
        assertThat(cleaned.get("warehouse").asText()).isEqualTo(warehouse.toString());
        assertThat(cleaned.get("tables").get(0).get("table").asText()).isEqualTo("demo.kv");
        assertThat(cleaned.get("orphanFiles").asLong()).isEqualTo(1);
        assertThat(orphan).doesNotExist();
        UserPaths.onlyEntryOfItsParent(warehouse);
    }

    /** The kit's tables go under the JVM's temp directory ({@code java.io.tmpdir}), which a user names too. */
    @Test
    void theKitWritesItsTablesUnderATempDirectoryOfEveryKind() throws Exception {
        Path tmpDir = Files.createDirectories(tmp.resolve("parent").resolve(UserPaths.everyKind()));
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        try (CliProcess cli = CliProcess.start(tmpDir, logs, List.of(), "tck", "--provider", "heap", "--rule", "WRITE-1",
                "--tries", "2", "--write-tries", "1", "--rows", "3000", "--json")) {
            assertThat(cli.exitCode(300)).as(cli.err()).isZero();
            JsonNode report = io.paimongov.fixtures.Json.parse(cli.out());
            assertThat(report.get("passed").asInt()).as(cli.out()).isEqualTo(1);
        }
        UserPaths.onlyEntryOfItsParent(tmpDir);
    }
}
