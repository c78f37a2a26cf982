package io.paimongov.example.nativehost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.tables.PaimonPaths;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding example as the build runs it: the C host built by this module starts its own JVM
 * with this module's class path, and its one line of JSON agrees with what a fresh reader finds in
 * the warehouse afterwards and with the rows it was told to write.
 */
class NativeHostExampleTest {

    private static final Path BIN = Path.of("target", "native", "embed_host").toAbsolutePath();

    @TempDir Path warehouse;

    @Test
    void theHostWritesOneTableCancelsTheOtherAndGetsEveryByteBack() throws Exception {
        assumeTrue(Files.isExecutable(BIN), BIN + " was not built: the build found no C compiler");
        int rows = 120_000;
        String classpath = Path.of("target", "classes").toAbsolutePath() + ":" + Files.readString(Path.of("target", "example.classpath")).strip();
        List<String> command = new ArrayList<>(List.of(BIN.toString(), "--classpath", classpath, "--warehouse", warehouse.toString(),
                "--rows", Integer.toString(rows), "--limit-mb", "16"));
        Process p = new ProcessBuilder(command).redirectError(warehouse.resolve("stderr.txt").toFile()).start();
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).as("the example ended").isTrue();

        assertThat(stdout.lines().toList()).as("stdout is one JSON object and nothing else").hasSize(1);
        JsonNode json = Json.parse(stdout);
        assertThat(json.get("verified").asBoolean()).as(stdout).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(json.get("cancelled").asBoolean()).isTrue();
        assertThat(json.get("heldAtEnd").asLong()).isZero();
        assertThat(json.get("hostLimitBytes").asLong()).isEqualTo(16L << 20);
        assertThat(json.get("hostPeakBytes").asLong()).isPositive().isLessThanOrEqualTo(16L << 20);
        assertThat(json.at("/firstWrite/hostBytesByConsumer/write buffer").asLong()).isPositive();

        FileStoreTable first = TestTables.open(PaimonPaths.option(warehouse), "t1");
        assertThat(count(first)).as("rows a fresh reader finds in the committed table").isEqualTo(rows);
        assertThat(json.at("/firstWrite/rowsReadBack").asLong()).isEqualTo(rows);
        FileStoreTable second = TestTables.open(PaimonPaths.option(warehouse), "t2");
        assertThat(second.snapshotManager().latestSnapshotId()).as("the cancelled write published nothing").isNull();
        assertThat(json.at("/secondWrite/rowsWritten").asLong()).isGreaterThanOrEqualTo(json.at("/secondWrite/rowsSeenAtCancel").asLong());
    }

    private static long count(FileStoreTable table) throws Exception {
        ReadBuilder builder = table.newReadBuilder();
        long n = 0;
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            RecordReader.RecordIterator<InternalRow> batch;
            while ((batch = reader.readBatch()) != null) {
                while (batch.next() != null) {
                    n++;
                }
                batch.releaseBatch();
            }
        }
        return n;
    }
}
