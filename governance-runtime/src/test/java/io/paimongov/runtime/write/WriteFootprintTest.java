package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the spill I/O reservation charges, by the buffer each table kind spills through: the tiered
 * buffer's channels for primary keys (the merge fan-in plus one), Paimon's for a primary key whose
 * spill codec the tiered buffer cannot read back, and two of Paimon's for a buffered append table,
 * whose buffer never merges. The channel costs are the shipped footprint table's cells.
 */
class WriteFootprintTest {

    private static final long BUDGET = 8 << 20;
    private static final int PAGE = 64 << 10;

    @TempDir Path dir;

    @Test
    void aPrimaryKeyTableChargesItsTieredFanInPlusOneChannels() throws Exception {
        WriteFootprint f = WriteFootprint.plan(table("pk", true, Map.of()), BUDGET, PAGE);

        long channel = MeasuredFootprints.get().bytes("spill", "tiered-8k", "spill-channel", PAGE);
        int fan = Integer.parseInt(f.tableOptions().get("local-sort.max-num-file-handles"));
        // 8 MiB / 8 = 1 MiB of channels at about 17 KB each: about 60, so the 8 KiB block.
        assertThat(fan).isEqualTo((int) (BUDGET / 8 / channel)).isGreaterThanOrEqualTo(32);
        assertThat(f.spillBlockBytes()).isEqualTo(8 << 10);
        assertThat(f.spillIoBytes()).isEqualTo((fan + 1L) * channel);
    }

    /**
     * Parquet's compressor keeps a page per open file, and with zstd per closed file until its
     * streams are finalized: the write sets 16 KiB pages unless the table sets its own, and a
     * larger page the table sets is charged per open file at the measured 1.05 bytes per byte above
     * the 16 KiB the footprints were measured at.
     */
    @Test
    void parquetPagesAre16KiBUnlessTheTableSetsThem() throws Exception {
        WriteFootprint planned = WriteFootprint.plan(table("pq", true, Map.of("file.format", "parquet")), BUDGET, PAGE);
        WriteFootprint given = WriteFootprint.plan(
                table("pq64", true, Map.of("file.format", "parquet", "parquet.page.size", "65536")), BUDGET, PAGE);

        assertThat(planned.tableOptions()).containsEntry("parquet.page.size", "16384");
        assertThat(given.tableOptions()).doesNotContainKey("parquet.page.size");
        assertThat(given.flushWriterBytes() - planned.flushWriterBytes()).isEqualTo((long) Math.ceil((64 - 16) * 1024 * 1.05));
    }

    /**
     * Row groups and stripes are a 32nd of the budget where a write may hold eight of them (primary
     * key) or one per open writer (unbuffered append), a 16th for append tables that buffer in
     * pages, which hold three; a table's own is kept.
     */
    @Test
    void bufferedAppendTablesTakeRowGroupsOfASixteenthOfTheBudget() throws Exception {
        String sixteenth = Long.toString(BUDGET / 16);
        String thirtySecond = Long.toString(BUDGET / 32);
        WriteFootprint appendOrc = WriteFootprint.plan(table("ao", false, Map.of("file.format", "orc")), BUDGET, PAGE);
        WriteFootprint appendParquet = WriteFootprint.plan(table("ap", false, Map.of("file.format", "parquet")), BUDGET, PAGE);
        WriteFootprint unbuffered = WriteFootprint.plan(
                table("au", false, Map.of("file.format", "parquet", "write-buffer-for-append", "false")), BUDGET, PAGE);
        WriteFootprint primaryKey = WriteFootprint.plan(table("po", true, Map.of("file.format", "orc")), BUDGET, PAGE);
        WriteFootprint own = WriteFootprint.plan(table("aw", false, Map.of("file.format", "orc", "orc.stripe.size", "1048576")), BUDGET, PAGE);

        assertThat(appendOrc.tableOptions()).containsEntry("orc.stripe.size", sixteenth).containsEntry("file.block-size", sixteenth);
        assertThat(appendOrc.formatBufferBytes()).isEqualTo(BUDGET / 16);
        assertThat(appendParquet.tableOptions()).containsEntry("file.block-size", sixteenth);
        assertThat(unbuffered.tableOptions()).containsEntry("file.block-size", thirtySecond);
        assertThat(primaryKey.tableOptions()).containsEntry("orc.stripe.size", thirtySecond);
        assertThat(own.tableOptions()).doesNotContainKey("orc.stripe.size");
        assertThat(own.formatBufferBytes()).isEqualTo(1 << 20);
    }

    /** The sixteenth stops at 1 MiB: from there on the 32nd is as large, and at 64 MiB larger. */
    @Test
    void theBufferedAppendSixteenthStopsAt1MiB() throws Exception {
        assertThat(WriteFootprint.plan(table("a16", false, Map.of("file.format", "orc")), 16L << 20, PAGE).tableOptions())
                .containsEntry("orc.stripe.size", Long.toString(1 << 20));
        assertThat(WriteFootprint.plan(table("a24", false, Map.of("file.format", "orc")), 24L << 20, PAGE).tableOptions())
                .containsEntry("orc.stripe.size", Long.toString(1 << 20));
        assertThat(WriteFootprint.plan(table("a64", false, Map.of("file.format", "orc")), 64L << 20, PAGE).tableOptions())
                .containsEntry("orc.stripe.size", Long.toString(2 << 20));
    }

    /**
     * ORC compression blocks are capped at 16 KiB, the size the footprints were measured at, unless
     * the table sets its own; each compaction reader of a larger block keeps one decompression
     * buffer of it, so a table's 256 KiB costs each of the task's readers 240 KiB more.
     */
    @Test
    void orcBlocksAre16KiBUnlessTheTableSetsThem() throws Exception {
        WriteFootprint planned = WriteFootprint.plan(table("orc", true, Map.of("file.format", "orc")), BUDGET, PAGE);
        WriteFootprint given = WriteFootprint.plan(
                table("orc256", true, Map.of("file.format", "orc", "orc.compress.size", "262144")), BUDGET, PAGE);

        assertThat(planned.tableOptions()).containsEntry("orc.compress.size", "16384");
        assertThat(given.tableOptions()).doesNotContainKey("orc.compress.size");
        long excess = (256 - 16) << 10;
        assertThat(given.readerBytes() - planned.readerBytes()).isEqualTo(excess);
        int readers = 5 + 1; // Paimon's num-sorted-run.compaction-trigger, and one more
        assertThat(given.compactionBytes() - planned.compactionBytes()).isEqualTo(readers * excess);
    }

    /**
     * A budget whose eighth holds hundreds of channels caps the fan-in at as many bytes of blocks
     * as 128 channels of 4 KiB: 64 of 8 KiB.
     */
    @Test
    void aLargeBudgetCapsTheFanInAtTheBytesOf128SmallBlocks() throws Exception {
        long budget = 64 << 20;
        WriteFootprint f = WriteFootprint.plan(table("large", true, Map.of()), budget, PAGE);

        long channel = MeasuredFootprints.get().bytes("spill", "tiered-8k", "spill-channel", PAGE);
        assertThat(budget / 8 / channel).as("an eighth holds far more than the cap").isGreaterThan(128);
        assertThat(f.spillBlockBytes()).isEqualTo(8 << 10);
        assertThat(f.tableOptions()).containsEntry("local-sort.max-num-file-handles", "64");
        assertThat(f.spillIoBytes()).isEqualTo(65 * channel);
        assertThat(SortedWriters.fanIn(budget, channel, 8 << 10)).isEqualTo(64);
        assertThat(SortedWriters.fanIn(budget, channel, 4 << 10)).isEqualTo(128);
    }

    /**
     * Where an eighth of the budget holds fewer than 32 channels of 8 KiB blocks, the tiered
     * buffers keep 4 KiB ones and twice the fan-in.
     */
    @Test
    void aSmallBudgetSpillsInSmallBlocksForTheWiderFanIn() throws Exception {
        long budget = 3 << 20;
        WriteFootprint f = WriteFootprint.plan(table("small", true, Map.of()), budget, PAGE);

        long large = MeasuredFootprints.get().bytes("spill", "tiered-8k", "spill-channel", PAGE);
        long small = MeasuredFootprints.get().bytes("spill", "tiered", "spill-channel", PAGE);
        assertThat(budget / 8 / large).as("8 KiB blocks would fit fewer than 32").isLessThan(32);
        int fan = Integer.parseInt(f.tableOptions().get("local-sort.max-num-file-handles"));
        assertThat(f.spillBlockBytes()).isEqualTo(4 << 10);
        assertThat(fan).isEqualTo((int) (budget / 8 / small));
        assertThat(f.spillIoBytes()).isEqualTo((fan + 1L) * small);
    }

    @Test
    void aPrimaryKeyTableWhoseSpillCodecTheTieredBufferCannotReadChargesPaimonsChannels() throws Exception {
        WriteFootprint f = WriteFootprint.plan(table("none", true, Map.of("spill-compression", "none")), BUDGET, PAGE);

        long channel = MeasuredFootprints.get().bytes("spill", "sort", "spill-channel", PAGE);
        int fan = Integer.parseInt(f.tableOptions().get("local-sort.max-num-file-handles"));
        assertThat(f.spillIoBytes()).isEqualTo((fan + 1L) * channel);
        assertThat(TieredWriteBuffers.readsBack(new org.apache.paimon.CoreOptions(Map.of("spill-compression", "none")).spillCompressOptions()))
                .isFalse();
    }

    @Test
    void aBufferedAppendTableChargesOneWriterAndOneReaderChannel() throws Exception {
        WriteFootprint f = WriteFootprint.plan(table("append", false, Map.of("write-buffer-for-append", "true")), BUDGET, PAGE);

        assertThat(f.spillIoBytes()).isEqualTo(2 * MeasuredFootprints.get().bytes("spill", "sort", "spill-channel", PAGE));
    }

    /**
     * Append tables spill through Paimon's ExternalBuffer, whose zstd codec opens a stream per block:
     * the write plans lz4 for them, keeps a codec the table sets, and leaves primary-key tables
     * (the tiered buffer reuses one zstd context) at Paimon's default.
     */
    @Test
    void appendTablesSpillWithLz4UnlessTheTableSetsACodec() throws Exception {
        assertThat(WriteFootprint.plan(table("a", false, Map.of()), BUDGET, PAGE).tableOptions())
                .containsEntry("spill-compression", "lz4");
        assertThat(WriteFootprint.plan(table("z", false, Map.of("spill-compression", "zstd")), BUDGET, PAGE).tableOptions())
                .doesNotContainKey("spill-compression");
        assertThat(WriteFootprint.plan(table("p", true, Map.of()), BUDGET, PAGE).tableOptions())
                .doesNotContainKey("spill-compression");
    }

    /**
     * The tiered buffers write their runs from memory with lz4 and merge with the table's codec,
     * unless the table sets its spill codec: then every run is written with it.
     */
    @Test
    void tieredRunsFromMemorySpillWithLz4UnlessTheTableSetsACodec() throws Exception {
        CompressOptions zstd9 = new CompressOptions("zstd", 9);
        WriteFootprint unset = WriteFootprint.plan(table("p", true, Map.of()), BUDGET, PAGE);
        assertThat(unset.spillRunCodec()).isEqualTo("lz4");
        assertThat(unset.spillRunCompression(zstd9)).isEqualTo(new CompressOptions("lz4", 9));
        WriteFootprint set = WriteFootprint.plan(table("z", true, Map.of("spill-compression", "zstd")), BUDGET, PAGE);
        assertThat(set.spillRunCodec()).isEqualTo("zstd");
        assertThat(set.spillRunCompression(zstd9)).isEqualTo(zstd9);
        assertThat(WriteFootprint.plan(table("l", true, Map.of("spill-compression", "lzo")), BUDGET, PAGE).spillRunCodec())
                .isEqualTo("lzo");
    }

    /**
     * An Avro append writer keeps one block of fixed size, so it is written unbuffered and charged
     * its measured open file alone; Parquet keeps its rows until a row group is full, so it buffers
     * in pages; a table that sets {@code write-buffer-for-append} keeps its choice.
     */
    @Test
    void avroAppendTablesWriteUnbufferedAtTheirMeasuredOpenFile() throws Exception {
        WriteFootprint avro = WriteFootprint.plan(table("avro", false, Map.of("file.format", "avro")), BUDGET, PAGE);
        assertThat(avro.tableOptions())
                .containsEntry("write-buffer-for-append", "false")
                .containsEntry("write-max-writers-to-spill", Integer.toString(Integer.MAX_VALUE));
        assertThat(avro.buffersInPages()).isFalse();
        assertThat(avro.perWriterBytes()).isEqualTo(MeasuredFootprints.get().bytes("append", "avro", "open", PAGE));
        assertThat(avro.spillIoBytes()).isZero();

        WriteFootprint parquet = WriteFootprint.plan(table("parquet", false, Map.of("file.format", "parquet")), BUDGET, PAGE);
        assertThat(parquet.tableOptions()).containsEntry("write-buffer-for-append", "true");
        assertThat(parquet.buffersInPages()).isTrue();
        assertThat(parquet.perWriterBytes()).isEqualTo(MeasuredFootprints.get().bytes("append", "parquet", "idle", PAGE));

        WriteFootprint chosen = WriteFootprint.plan(
                table("chosen", false, Map.of("file.format", "avro", "write-buffer-for-append", "true")), BUDGET, PAGE);
        assertThat(chosen.tableOptions()).doesNotContainKeys("write-buffer-for-append", "write-max-writers-to-spill");
        assertThat(chosen.buffersInPages()).isTrue();
    }

    /**
     * A table whose compaction looks keys up gets its lookup files without bloom filters (each one
     * cache page of about 0.78 bytes per row of the file, more than a bucket's share of a cache cut
     * from the budget) and compressed with lz4 (Paimon's zstd block codec keeps each block's bytes
     * until a finalizer runs) unless it sets them; a table without lookups is left as it is.
     */
    @Test
    void lookupTablesGetLookupFilesWithoutBloomFiltersAndWithLz4UnlessTheySetThem() throws Exception {
        String bloom = "lookup.cache.bloom.filter.enabled";
        String codec = "lookup.cache-spill-compression";
        WriteFootprint dv = WriteFootprint.plan(table("dv", true, Map.of("deletion-vectors.enabled", "true")), BUDGET, PAGE);
        assertThat(dv.tableOptions()).containsEntry(bloom, "false").containsEntry(codec, "lz4");

        WriteFootprint own = WriteFootprint.plan(
                table("own", true, Map.of("changelog-producer", "lookup", bloom, "true", codec, "zstd")), BUDGET, PAGE);
        assertThat(own.tableOptions()).doesNotContainKeys(bloom, codec);

        WriteFootprint plain = WriteFootprint.plan(table("nolookup", true, Map.of()), BUDGET, PAGE);
        assertThat(plain.tableOptions()).doesNotContainKeys(bloom, codec);
    }

    private FileStoreTable table(String name, boolean primaryKey, Map<String, String> options) throws Exception {
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(dir.toUri().toString())))) {
            catalog.createDatabase("db", true);
            Identifier id = Identifier.create("db", name);
            Schema.Builder schema = Schema.newBuilder()
                    .column("k", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .option("bucket", "2")
                    .options(options);
            if (primaryKey) {
                schema.primaryKey("k");
            } else {
                schema.option("bucket-key", "k");
            }
            catalog.createTable(id, schema.build(), true);
            return (FileStoreTable) catalog.getTable(id);
        }
    }
}
