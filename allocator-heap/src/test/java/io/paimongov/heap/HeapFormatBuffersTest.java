package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.format.parquet.ParquetUtil;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.paimon.shade.org.apache.parquet.hadoop.CodecFactory;
import org.apache.paimon.shade.org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.paimon.shade.org.apache.parquet.hadoop.codec.ZstandardCodec;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.paimon.shade.org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The format buffers a governed write's files really have, read back from the files by the formats'
 * own metadata (not by the code under test), against a plain Paimon write of the same rows:
 *
 * <ul>
 *   <li>ORC compression blocks, from each file's postscript: at most 16 KiB, the size the compaction
 *       readers' footprints were measured at, unless the table sets {@code orc.compress.size}. The
 *       table's 4 MiB stripes ({@code orc.stripe.size}, and {@code file.block-size}, which Paimon
 *       gives ORC's writer as its stripe) have ORC itself pick 32 KiB blocks for its 8 columns
 *       (stripe / (20 x columns), rounded up to a power of two).
 *   <li>Parquet pages, from the value column's offset index: about 16 KiB of values each unless the
 *       table sets {@code parquet.page.size}, where Parquet's own 1 MiB puts a file's values in one
 *       page. Dictionaries are off, so that a page holds the values themselves.
 * </ul>
 */
class HeapFormatBuffersTest {

    private static final Workload ORC_ROWS = Workload.random(7, 4_000, 2_000, 2, 64);
    /** About 300 KB of values in each of the 4 files. */
    private static final Workload PARQUET_ROWS = Workload.random(11, 20_000, 10_000, 2, 64);

    @TempDir Path dir;

    @Test
    void plainPaimonWrites32KiBOrcBlocksForTheseStripes() throws Exception {
        assertThat(orcBlocks(plain(orc("plain", Map.of()), ORC_ROWS))).containsExactly(32L << 10);
    }

    @Test
    void governedOrcFilesHaveBlocksOfAtMost16KiB() throws Exception {
        assertThat(orcBlocks(governed(orc("governed", Map.of()), ORC_ROWS))).containsExactly(16L << 10);
    }

    @Test
    void aTableKeepsItsOwnOrcBlock() throws Exception {
        assertThat(orcBlocks(governed(orc("own", Map.of("orc.compress.size", "8192")), ORC_ROWS))).containsExactly(8L << 10);
    }

    @Test
    void plainPaimonWritesAFilesValuesInOneParquetPage() throws Exception {
        ValuePages pages = valuePages(plain(parquet("plain", Map.of()), PARQUET_ROWS));
        assertThat(pages.pages).isEqualTo(pages.chunks);
    }

    @Test
    void governedParquetPagesHoldAbout16KiB() throws Exception {
        ValuePages pages = valuePages(governed(parquet("governed", Map.of()), PARQUET_ROWS));
        assertThat(pages.bytesPerPage()).isBetween(8L << 10, 24L << 10);
    }

    @Test
    void aTableKeepsItsOwnParquetPage() throws Exception {
        ValuePages pages = valuePages(governed(parquet("own", Map.of("parquet.page.size", "65536")), PARQUET_ROWS));
        assertThat(pages.bytesPerPage()).isBetween(40L << 10, 96L << 10);
    }

    /**
     * Parquet keeps one zstd codec per level for the JVM: after a governed write of a table at a
     * level no other test uses, the one under that level is not Parquet's own, whose streams hold
     * each page's column chunk until a finalizer runs.
     */
    @Test
    void governedParquetZstdPagesAreNotWrittenByParquetsFinalizingCodec() throws Exception {
        governed(parquet("zstd", Map.of("file.compression", "zstd", "file.compression.zstd-level", "17")), PARQUET_ROWS);
        CompressionCodec codec = ParquetCodecs.cache().get(CompressionCodecName.ZSTD.getHadoopCompressionCodecClassName() + ":17");
        assertThat(codec).isInstanceOf(ZstandardCodec.class);
        assertThat(codec.getClass()).isNotEqualTo(ZstandardCodec.class);
    }

    /** Parquet's codec cache, which it keeps for its subclasses. Never instantiated. */
    private static final class ParquetCodecs extends CodecFactory {
        private ParquetCodecs() {
            super(new org.apache.hadoop.conf.Configuration(false), 0);
        }

        static Map<String, CompressionCodec> cache() {
            return CODEC_BY_NAME;
        }
    }

    /** A two-bucket primary-key ORC table of 4 MiB stripes and {@code extra}. */
    private FileStoreTable orc(String name, Map<String, String> extra) throws Exception {
        Map<String, String> options = new HashMap<>(extra);
        options.put("orc.stripe.size", Integer.toString(4 << 20));
        options.put("file.block-size", Integer.toString(4 << 20));
        return table("orc-" + name, "orc", options);
    }

    /** A two-bucket primary-key Parquet table without dictionaries, and {@code extra}. */
    private FileStoreTable parquet(String name, Map<String, String> extra) throws Exception {
        Map<String, String> options = new HashMap<>(extra);
        options.put("parquet.enable.dictionary", "false");
        return table("parquet-" + name, "parquet", options);
    }

    private FileStoreTable table(String name, String format, Map<String, String> extra) throws Exception {
        Map<String, String> options = new HashMap<>(extra);
        options.put("file.format", format);
        options.put("bucket", "2");
        return TestTables.createTable(dir.resolve(name).resolve("wh"), "t", options, true);
    }

    /** {@code table} with {@code rows} written and committed by a governed write, checked against the rows' model. */
    private FileStoreTable governed(FileStoreTable table, Workload rows) throws Exception {
        WriteHarness h = new WriteHarness(Files.createTempDirectory(dir, "governed"));
        h.writeAndCommit(table, h.options("48m"), rows.rows());
        assertThat(TestTables.read(table)).isEqualTo(rows.expected());
        return table;
    }

    /** {@code table} with {@code rows} written and committed by plain Paimon, checked against the rows' model. */
    private static FileStoreTable plain(FileStoreTable table, Workload rows) throws Exception {
        try (BatchTableWrite write = table.newBatchWriteBuilder().newWrite();
                BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            for (InternalRow row : rows.rows()) {
                write.write(row);
            }
            commit.commit(write.prepareCommit());
        }
        assertThat(TestTables.read(table)).isEqualTo(rows.expected());
        return table;
    }

    /** The distinct compression block sizes of {@code table}'s ORC data files. */
    private static TreeSet<Long> orcBlocks(FileStoreTable table) throws IOException {
        TreeSet<Long> sizes = new TreeSet<>();
        for (Path f : nonEmpty(table)) {
            sizes.add(orcCompressionBlockSize(f));
        }
        return sizes;
    }

    /** The value column's chunks, pages and uncompressed bytes over {@code table}'s Parquet data files. */
    private static ValuePages valuePages(FileStoreTable table) throws IOException {
        ValuePages out = new ValuePages();
        for (Path f : nonEmpty(table)) {
            org.apache.paimon.fs.Path path = new org.apache.paimon.fs.Path(f.toUri());
            try (ParquetFileReader reader = ParquetUtil.getParquetReader(LocalFileIO.create(), path, Files.size(f), new Options())) {
                for (BlockMetaData rowGroup : reader.getRowGroups()) {
                    for (ColumnChunkMetaData chunk : rowGroup.getColumns()) {
                        if (chunk.getPath().toDotString().equals("v")) {
                            out.chunks++;
                            out.pages += reader.readOffsetIndex(chunk).getPageCount();
                            out.bytes += chunk.getTotalUncompressedSize();
                        }
                    }
                }
            }
        }
        assertThat(out.chunks).as("value column chunks").isPositive();
        assertThat(out.bytes / out.chunks).as("values per chunk, enough for pages of 16 KiB").isGreaterThan(128L << 10);
        return out;
    }

    private static final class ValuePages {
        long chunks;
        long pages;
        long bytes;

        long bytesPerPage() {
            return bytes / pages;
        }
    }

    private static List<Path> nonEmpty(FileStoreTable table) throws IOException {
        List<Path> files = TestTables.dataFiles(table);
        assertThat(files).isNotEmpty();
        return files;
    }

    /**
     * Field 3 ({@code compressionBlockSize}, a varint) of the ORC file's postscript: the last byte of
     * the file is the postscript's length, and the postscript, uncompressed, comes right before it.
     */
    static long orcCompressionBlockSize(Path file) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            in.seek(length - 1);
            int psLength = in.read();
            byte[] ps = new byte[psLength];
            in.seek(length - 1 - psLength);
            in.readFully(ps);
            int[] at = {0};
            while (at[0] < ps.length) {
                long key = varint(ps, at);
                int field = (int) (key >>> 3);
                int wire = (int) (key & 7);
                if (wire == 0) {
                    long value = varint(ps, at);
                    if (field == 3) {
                        return value;
                    }
                } else if (wire == 2) {
                    at[0] += (int) varint(ps, at);
                } else {
                    throw new IOException("unexpected wire type " + wire + " in the postscript of " + file);
                }
            }
            throw new IOException("no compressionBlockSize in the postscript of " + file);
        }
    }

    private static long varint(byte[] b, int[] at) {
        long value = 0;
        for (int shift = 0; ; shift += 7) {
            byte x = b[at[0]++];
            value |= (long) (x & 0x7f) << shift;
            if (x >= 0) {
                return value;
            }
        }
    }
}
