package io.paimongov.runtime.internal.formats;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The codec is found where Paimon looks for it: a real Parquet table with zstd at a level no other
 * test uses, written (a compaction included) and read by Paimon itself after {@link
 * ParquetZstd#install}. Had the installed key not been the one Paimon's Parquet looks up, Parquet
 * would have created its own codec under its key: every zstd codec Parquet's cache gained meanwhile
 * must be the installed one, and the rows read back must be those written.
 */
class ParquetZstdTest {

    @TempDir Path dir;

    @ParameterizedTest
    @CsvSource({"file.compression.zstd-level, 11", "parquet.compression.codec.zstd.level, 13"})
    void paimonReadsAndWritesTheTablesPagesWithTheInstalledCodec(String levelOption, String level) throws Exception {
        FileStoreTable table = table(Map.of(levelOption, level));
        Map<String, CompressionCodec> cache = ParquetZstd.Codecs.cache();
        Set<String> before;
        synchronized (cache) {
            before = new HashSet<>(cache.keySet());
        }

        ParquetZstd.install(table.options());
        Map<Integer, String> written = new TreeMap<>();
        for (int commit = 0; commit < 3; commit++) {
            write(table, commit, written);
        }
        assertThat(read(table)).isEqualTo(written);

        String zstd = CompressionCodecName.ZSTD.getHadoopCompressionCodecClassName();
        Map<String, CompressionCodec> gained = new HashMap<>();
        synchronized (cache) {
            cache.forEach((key, codec) -> {
                if (key.startsWith(zstd) && !before.contains(key)) {
                    gained.put(key, codec);
                }
            });
        }
        assertThat(gained).containsOnlyKeys(zstd + ":" + level);
        assertThat(gained.get(zstd + ":" + level)).isInstanceOf(ClosingZstdCodec.class);
    }

    private FileStoreTable table(Map<String, String> options) throws Exception {
        Schema schema = Schema.newBuilder()
                .column("k", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("k")
                .option("bucket", "1")
                .option("file.format", "parquet")
                .option("file.compression", "zstd")
                .option("full-compaction.delta-commits", "2")
                .options(options)
                .build();
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(dir.toUri().toString())))) {
            catalog.createDatabase("db", true);
            catalog.createTable(Identifier.create("db", "t"), schema, false);
            return (FileStoreTable) catalog.getTable(Identifier.create("db", "t"));
        }
    }

    /** Commit {@code commit}: keys 0 to 1,999 again, so that every commit updates the one before. */
    private static void write(FileStoreTable table, int commit, Map<Integer, String> model) throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite(); BatchTableCommit commitIt = builder.newCommit()) {
            for (int k = 0; k < 2_000; k++) {
                String v = "value-" + k + "-of-commit-" + commit;
                write.write(GenericRow.of(k, BinaryString.fromString(v)));
                model.put(k, v);
            }
            commitIt.commit(write.prepareCommit());
        }
    }

    private static Map<Integer, String> read(FileStoreTable table) throws Exception {
        ReadBuilder rb = table.newReadBuilder();
        Map<Integer, String> out = new TreeMap<>();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(row -> out.put(row.getInt(0), row.getString(1).toString()));
        }
        return out;
    }
}
