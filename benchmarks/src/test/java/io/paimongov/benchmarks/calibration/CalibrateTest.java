package io.paimongov.benchmarks.calibration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness end to end on two tiny cells (a primary-key and an append Parquet table, 8 and 16
 * writers): every child runs, the table names every cell and stage and parses back, and the
 * figures agree with what is known without the harness: the writers opened are the pairs written
 * to, more open writers hold more heap, a primary-key writer's pages hold at least its rows, and
 * an append writer with its file open takes no pages. No threshold on a measured size.
 */
class CalibrateTest {

    private static final int ROWS = 8;
    private static final int VALUE_BYTES = 64;

    @TempDir Path dir;

    @Test
    void measuresEveryCellAndTheTableParsesBack() throws Exception {
        Calibrate.Grid grid = new Calibrate.Grid(List.of(Cell.Kind.PK, Cell.Kind.APPEND), List.of("parquet"),
                List.of("zstd"), List.of(VALUE_BYTES), List.of(32 << 10), 8, 16, ROWS);
        List<String> progress = new ArrayList<>();
        FootprintTable table = Calibrate.run(grid, dir.resolve("work"), "test command", progress::add);
        Path file = dir.resolve("footprints.tsv");
        table.write(file);

        FootprintTable read = FootprintTable.parseTsv(Files.readString(file, StandardCharsets.UTF_8));
        assertThat(read.header()).containsEntry("command", "test command").containsKeys("jvm", "paimon", "date");
        assertThat(read.header().get("harness")).startsWith(Calibrate.class.getName());
        assertThat(read.rows()).extracting(r -> r.cell() + "/" + r.stage())
                .containsExactly(
                        "pk parquet zstd v=64 page=32k/open", "pk parquet zstd v=64 page=32k/idle",
                        "pk parquet zstd v=64 page=32k/file",
                        "append parquet zstd v=64 page=32k/open", "append parquet zstd v=64 page=32k/idle");
        assertThat(progress).hasSize(2);

        for (FootprintTable.Row r : read.rows()) {
            assertThat(r.writersLow()).as(r.cell() + " " + r.stage()).isEqualTo(8);
            assertThat(r.writersHigh()).as(r.cell() + " " + r.stage()).isEqualTo(16);
            assertThat(r.heapHigh()).as(r.cell() + " " + r.stage()).isGreaterThan(r.heapLow());
            assertThat(r.bytesPerWriter()).as(r.cell() + " " + r.stage()).isPositive();
        }
        FootprintTable.Row pkOpen = read.rows().get(0);
        assertThat(pkOpen.pageBytesPerWriter()).isGreaterThanOrEqualTo((long) ROWS * VALUE_BYTES);
        FootprintTable.Row appendOpen = read.rows().get(3);
        assertThat(appendOpen.pagesLow()).isZero();
        assertThat(appendOpen.pagesHigh()).isZero();
        assertThat(dir.resolve("work").toFile().list()).isEmpty();
    }

    /**
     * The spill-channel probe end to end at 8 and 16 open channels: each channel keeps at least the
     * uncompressed block its reader allocates (Paimon's sort buffer: 64 KiB; the tiered buffer:
     * its own block), whatever the codec, and the tiered buffer's channel less than Paimon's.
     */
    @Test
    void measuresWhatOneOpenSpillChannelKeeps() throws Exception {
        Calibrate.Grid grid = new Calibrate.Grid(List.of(Cell.Kind.SPILL), List.of(), List.of(), List.of(VALUE_BYTES),
                List.of(32 << 10), 8, 16, ROWS);
        FootprintTable table = Calibrate.run(grid, dir.resolve("work"), "test command", line -> {});
        assertThat(table.rows()).extracting(r -> r.cell() + "/" + r.stage())
                .containsExactly("spill sort zstd v=64 page=32k/spill-channel", "spill sort lz4 v=64 page=32k/spill-channel",
                        "spill tiered zstd v=64 page=32k/spill-channel", "spill tiered lz4 v=64 page=32k/spill-channel",
                        "spill tiered-8k zstd v=64 page=32k/spill-channel", "spill tiered-8k lz4 v=64 page=32k/spill-channel");
        Map<String, Integer> blocks = Map.of("sort", 64 << 10, "tiered", 4 << 10, "tiered-8k", 8 << 10);
        for (FootprintTable.Row r : table.rows()) {
            // A channel keeps at least its compressed and its uncompressed block.
            assertThat(r.bytesPerWriter()).as(r.cell().toString()).isGreaterThanOrEqualTo(2L * blocks.get(r.cell().format()));
            assertThat(r.pageBytesPerWriter()).isZero();
        }
        assertThat(table.rows().get(2).bytesPerWriter()).as("tiered vs sort, zstd").isLessThan(table.rows().get(0).bytesPerWriter());
        assertThat(table.rows().get(2).bytesPerWriter()).as("4 KiB vs 8 KiB blocks, zstd").isLessThan(table.rows().get(4).bytesPerWriter());
        assertThat(FootprintTable.parseTsv(table.toTsv()).rows()).hasSize(6);
    }

    /**
     * The commit-message probe end to end at 8 and 16 writers: a kept message holds at least its
     * data file's name, and far less than a page (the writers and their pages are gone).
     */
    @Test
    void measuresWhatTheMessageOfAClosedWriterKeeps() throws Exception {
        Cell cell = new Cell(Cell.Kind.APPEND, "avro", "zstd", VALUE_BYTES, 32 << 10);
        assertThat(perItemAt8And16(MessageProbe.class, MessageProbe.STAGE, cell)).isGreaterThan(100).isLessThan(16 << 10);
    }

    /**
     * The compaction-reader probe end to end at 8 and 16 files: one reader per file written, each
     * keeping its buffers. ORC, whose readers keep the most (its decompression buffers: hundreds of
     * KB), so that 8 readers' worth stands far above the noise of a few KB that shared state
     * leaves at such small counts; below 2 MiB, far more than 8 rows of these files could hold.
     */
    @Test
    void measuresWhatAnOpenCompactionReaderKeeps() throws Exception {
        Cell cell = new Cell(Cell.Kind.PK, "orc", "zstd", VALUE_BYTES, 32 << 10);
        assertThat(perItemAt8And16(ReaderProbe.class, ReaderProbe.STAGE, cell)).isGreaterThan(64 << 10).isLessThan(2 << 20);
    }

    /**
     * Runs {@code probe} at 8 and at 16 writers, checks that it measured as many as it was asked
     * for, and returns the slope of {@code stage} between them: bytes per writer, message or reader.
     */
    private long perItemAt8And16(Class<?> probe, String stage, Cell cell) throws Exception {
        Map<String, Long> low = ChildRuns.probeChild(probe, stage, cell, ROWS, 8, dir.resolve("low"));
        Map<String, Long> high = ChildRuns.probeChild(probe, stage, cell, ROWS, 16, dir.resolve("high"));
        assertThat(low.get("writers")).isEqualTo(8);
        assertThat(high.get("writers")).isEqualTo(16);
        return (high.get(stage) - low.get(stage)) / 8;
    }

    /** The table the runtime ships parses, and has a spill-channel cell for each codec and page size. */
    @Test
    void theShippedTableParsesWithItsSpillChannelRows() throws Exception {
        String text;
        try (var in = CalibrateTest.class.getResourceAsStream("/io/paimongov/runtime/footprint/footprints.tsv")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        FootprintTable shipped = FootprintTable.parseTsv(text);
        assertThat(shipped.rows()).filteredOn(r -> r.stage().equals("spill-channel"))
                .extracting(r -> r.cell().format() + "/" + r.cell().compression() + "/" + r.cell().pageSize())
                .contains("sort/zstd/32768", "sort/zstd/65536", "sort/lz4/32768", "sort/lz4/65536",
                        "tiered/zstd/32768", "tiered/zstd/65536", "tiered/lz4/32768", "tiered/lz4/65536");
    }

    @Test
    void jsonCarriesTheHeaderAndEveryRow() throws Exception {
        FootprintTable table = new FootprintTable(Map.of("harness", "h", "command", "say \"hi\"\tnow"), List.of(
                row("open", 64, 256, 1_000, 193_000, 0, 0),
                row("idle", 64, 256, 500, 500 + 192 * 7, 64 << 10, 256 << 10)));
        JsonNode json = new ObjectMapper().readTree(table.toJson());
        assertThat(json.get("command").asText()).isEqualTo("say \"hi\"\tnow");
        assertThat(json.get("rows")).hasSize(2);
        assertThat(json.get("rows").get(0).get("bytesPerWriter").asLong()).isEqualTo(1_000);
        assertThat(json.get("rows").get(1).get("bytesPerWriter").asLong()).isEqualTo(7);
        assertThat(json.get("rows").get(1).get("pageBytesPerWriter").asLong()).isEqualTo(1 << 10);
        assertThat(json.get("rows").get(1).get("format").asText()).isEqualTo("orc");
    }

    @Test
    void aTableWhoseSlopeDisagreesWithItsMeasurementsIsRefused() {
        FootprintTable table = new FootprintTable(Map.of(), List.of(row("open", 64, 256, 0, 192_000, 0, 0)));
        String good = table.toTsv();
        assertThat(FootprintTable.parseTsv(good).rows()).hasSize(1);
        String bad = good.replace("\t1000\t", "\t999\t");
        assertThat(bad).isNotEqualTo(good);
        assertThatThrownBy(() -> FootprintTable.parseTsv(bad)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FootprintTable.parseTsv("kind\tformat\n")).isInstanceOf(IllegalArgumentException.class);
    }

    private static FootprintTable.Row row(String stage, int low, int high, long heapLow, long heapHigh, long pagesLow, long pagesHigh) {
        return new FootprintTable.Row(new Cell(Cell.Kind.PK, "orc", "zstd", 64, 64 << 10), 32, stage, low, high,
                heapLow, heapHigh, pagesLow, pagesHigh);
    }
}
