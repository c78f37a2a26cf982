package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ORC compression block a governed write's files really have, read from each file's postscript
 * (the ORC specification, not the code under test): at most 16 KiB, the size the compaction
 * readers' footprints were measured at, unless the table sets {@code orc.compress.size}. The
 * table's 4 MiB stripes ({@code orc.stripe.size}, and {@code file.block-size}, which Paimon gives
 * ORC's writer as its stripe) have ORC itself pick 32 KiB blocks for its 8 columns (stripe / (20 x
 * columns), rounded up to a power of two), as a plain Paimon write of the same rows shows.
 */
class HeapOrcBlocksTest {

    @TempDir Path dir;

    private static final Workload ROWS = Workload.random(7, 4_000, 2_000, 2, 64);

    @Test
    void plainPaimonWrites32KiBBlocksForTheseStripes() throws Exception {
        FileStoreTable table = table("plain", Map.of());
        try (BatchTableWrite write = table.newBatchWriteBuilder().newWrite();
                BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            for (InternalRow row : ROWS.rows()) {
                write.write(row);
            }
            commit.commit(write.prepareCommit());
        }
        assertThat(blockSizes(table)).containsExactly(32L << 10);
    }

    @Test
    void governedOrcFilesHaveBlocksOfAtMost16KiB() throws Exception {
        assertThat(blockSizes(governed("governed", Map.of()))).containsExactly(16L << 10);
    }

    @Test
    void aTableKeepsItsOwnOrcBlock() throws Exception {
        assertThat(blockSizes(governed("own", Map.of("orc.compress.size", "8192")))).containsExactly(8L << 10);
    }

    /** A two-bucket primary-key ORC table of 4 MiB stripes and {@code extra}. */
    private FileStoreTable table(String name, Map<String, String> extra) throws Exception {
        Map<String, String> options = new HashMap<>(extra);
        options.put("file.format", "orc");
        options.put("bucket", "2");
        options.put("orc.stripe.size", Integer.toString(4 << 20));
        options.put("file.block-size", Integer.toString(4 << 20));
        return TestTables.createTable(dir.resolve(name).resolve("wh"), "t", options, true);
    }

    /** The table of {@code extra} with {@link #ROWS} written and committed by a governed write. */
    private FileStoreTable governed(String name, Map<String, String> extra) throws Exception {
        FileStoreTable table = table(name, extra);
        WriteHarness h = new WriteHarness(dir.resolve(name));
        h.writeAndCommit(table, h.options("48m"), ROWS.rows());
        return table;
    }

    /** The distinct compression block sizes of {@code table}'s data files, which hold {@link #ROWS}. */
    private static TreeSet<Long> blockSizes(FileStoreTable table) throws Exception {
        assertThat(TestTables.read(table)).isEqualTo(ROWS.expected());
        List<Path> files = TestTables.dataFiles(table);
        assertThat(files).isNotEmpty();
        TreeSet<Long> sizes = new TreeSet<>();
        for (Path f : files) {
            sizes.add(compressionBlockSize(f));
        }
        return sizes;
    }

    /**
     * Field 3 ({@code compressionBlockSize}, a varint) of the ORC file's postscript: the last byte of
     * the file is the postscript's length, and the postscript, uncompressed, comes right before it.
     */
    static long compressionBlockSize(Path file) throws IOException {
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
