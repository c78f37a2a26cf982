package io.paimongov.benchmarks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.paimon.KeyValueSerializer;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.memory.MemorySegmentUtils;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/*
 * How it works. prepare() (untimed) turns the rows into the key-value rows a primary-key writer
 * sorts (Paimon's serializers: key, sequence number, row kind, value), puts each in its bucket by
 * the table's own bucket function, cuts every bucket in arrival order into its share of the runs
 * plus a last piece that stays in memory (a spilling writer keeps its last buffer), and sorts each
 * piece by (key, sequence number). run() then does what a spill adds to an in-memory write: every
 * piece but the last is compressed block by block and written to a file of its own, and each
 * bucket's files and its piece in memory are merged in key order, at most fanIn streams at once:
 * while there are more, its smallest runs are merged into one new file first (fewest rows
 * rewritten). A block is written with one FileChannel call (an 8-byte header of its raw and
 * compressed lengths, then the compressed bytes) and read with two (header, bytes); it holds whole
 * records ([int length][row]), and a record larger than the block gets a block of its own
 * (PlainRowStream reads them, PlainBlockCodec compresses).
 *
 * Why plain: the figure is a limit the governed write is read against, so it uses nothing of the
 * runtime's spill code or of Paimon's sort buffers and channel views; only the codec is shared
 * (lz4 through Paimon's block codec, which the spill uses; zstd through one reused zstd-jni context
 * each way), since the codec is part of what the limit is about.
 */
/**
 * P4's limit: the spill of a spilling write done by a plain external sort of the same rows with the
 * same number of runs, fan-in, block and codec, so that {@code T(in memory) + T(this)} is what a
 * spilling write would take if spilling added nothing but the disk's and the codec's work
 * (docs/performance.md, P4). Sorting each piece is left out of the time: the in-memory write sorts
 * the same rows too.
 *
 * <p>The table must have one {@code INT} primary key (P4's {@code bench.t}); the merge reads the key
 * and the sequence number from the rows' fixed-length part.
 *
 * <p><b>Thread-safety:</b> not thread-safe; an {@link Input} is run by one thread at a time. <b>May
 * throw:</b> {@link IOException} from the files; {@link IllegalStateException} when the merged
 * output is not the input in order (a broken reference must not produce a figure).
 */
final class PlainExternalSort {

    /**
     * What to do.
     *
     * @param runs runs written to disk over all buckets (the spilling write's {@code spillCount})
     * @param fanIn the most streams one merge reads (the write's {@code local-sort.max-num-file-handles})
     * @param block raw bytes of rows per compressed block (the write's spill block)
     * @param codec the block codec: {@code lz4} or {@code zstd} (at its level)
     */
    record Plan(long runs, int fanIn, int block, CompressOptions codec) {
        Plan {
            if (runs < 0) {
                throw new IllegalArgumentException("runs must not be negative: " + runs);
            }
            if (fanIn < 2) {
                throw new IllegalArgumentException("fan-in must be at least 2: " + fanIn);
            }
            if (block < 64) {
                throw new IllegalArgumentException("block must be at least 64 bytes: " + block);
            }
            String c = codec.compress().toLowerCase(Locale.ROOT);
            if (!c.equals("lz4") && !c.equals("zstd")) {
                throw new IllegalArgumentException("codec must be lz4 or zstd: " + codec.compress());
            }
        }
    }

    /** Sorted records ({@code [int length][row]}, in key order), {@code count} of them. */
    record Piece(byte[] records, int count) {}

    /**
     * The prepared rows: per bucket its pieces, the runs to spill first and the piece kept in
     * memory last.
     */
    record Input(List<List<Piece>> buckets, long rows, int rowArity) {}

    /**
     * One run's outcome.
     *
     * @param rows rows the final merges gave out
     * @param checksum a sum over the rows given out, so that the merge's work cannot be optimised away
     * @param fileBytes bytes written to files, headers included (merge outputs too)
     * @param files files written (runs and merge outputs)
     * @param merges merges that wrote a file (not the final merge of each bucket)
     */
    record Result(long rows, long checksum, long fileBytes, int files, int merges) {}

    /** Where the final merges give their rows, in order, bucket after bucket. */
    @FunctionalInterface
    interface Sink {
        void row(int bucket, byte[] bytes, int offset, int length);
    }

    private static final ByteOrder ROW_ORDER = PlainRowStream.ROW_ORDER;
    private static final int HEADER = PlainRowStream.BLOCK_HEADER;

    private PlainExternalSort() {}

    /**
     * The key-value rows of {@code rows} written into {@code table}, cut and sorted for {@code plan}.
     *
     * @throws IllegalArgumentException when the table's primary key is not one {@code INT} field
     */
    static Input prepare(FileStoreTable table, Iterable<? extends InternalRow> rows, Plan plan) {
        RowType keyType = table.schema().logicalTrimmedPrimaryKeysType();
        if (keyType.getFieldCount() != 1 || keyType.getTypeAt(0).getTypeRoot() != DataTypeRoot.INTEGER) {
            throw new IllegalArgumentException("the plain external sort takes a table with one INT primary key, not " + keyType);
        }
        RowType valueType = table.rowType();
        // Key fields named apart from the value's, as Paimon's key-value schema needs ("_KEY_k").
        KeyValueSerializer kv = new KeyValueSerializer(
                new RowType(keyType.getFields().stream().map(f -> f.newName("_KEY_" + f.name())).toList()), valueType);
        // The fields of Paimon's key-value row (KeyValue.schema, without its key-name prefix).
        List<DataType> fields = new ArrayList<>(keyType.getFieldTypes());
        fields.add(DataTypes.BIGINT().notNull());
        fields.add(DataTypes.TINYINT().notNull());
        fields.addAll(valueType.getFieldTypes());
        InternalRowSerializer binary = new InternalRowSerializer(fields.toArray(new DataType[0]));
        KeyAndBucketExtractor<InternalRow> buckets = table.createRowKeyExtractor();
        int bucketCount = table.coreOptions().bucket();
        List<List<byte[]>> byBucket = new ArrayList<>();
        for (int b = 0; b < bucketCount; b++) {
            byBucket.add(new ArrayList<>());
        }
        long total = 0;
        for (InternalRow row : rows) {
            buckets.setRecord(row);
            List<byte[]> bucket = byBucket.get(buckets.bucket());
            BinaryRow r = binary.toBinaryRow(kv.toRow(buckets.trimmedPrimaryKey(), bucket.size(), RowKind.INSERT, row));
            bucket.add(MemorySegmentUtils.copyToBytes(r.getSegments(), r.getOffset(), r.getSizeInBytes()));
            total++;
        }
        int arity = fields.size();
        long[] runs = share(plan.runs(), byBucket.stream().mapToLong(List::size).toArray());
        List<List<Piece>> pieces = new ArrayList<>();
        for (int b = 0; b < bucketCount; b++) {
            pieces.add(cut(byBucket.get(b), (int) runs[b] + 1, arity));
        }
        return new Input(pieces, total, arity);
    }

    /** {@code runs} shared over buckets in proportion to their rows (largest remainders first). */
    static long[] share(long runs, long[] rows) {
        long total = 0;
        for (long r : rows) {
            total += r;
        }
        long[] share = new long[rows.length];
        if (total == 0) {
            return share;
        }
        double[] remainder = new double[rows.length];
        long given = 0;
        for (int b = 0; b < rows.length; b++) {
            double exact = (double) runs * rows[b] / total;
            share[b] = (long) exact;
            remainder[b] = exact - share[b];
            given += share[b];
        }
        for (; given < runs; given++) {
            int best = 0;
            for (int b = 1; b < rows.length; b++) {
                if (remainder[b] > remainder[best]) {
                    best = b;
                }
            }
            share[best]++;
            remainder[best] = -1;
        }
        return share;
    }

    /** {@code rows} in arrival order cut into {@code pieces} pieces of nearly equal count, each sorted. */
    private static List<Piece> cut(List<byte[]> rows, int pieces, int arity) {
        int header = BinaryRow.calculateBitSetWidthInBytes(arity);
        List<Piece> out = new ArrayList<>();
        int n = rows.size();
        for (int p = 0; p < pieces; p++) {
            List<Keyed> part = new ArrayList<>();
            for (byte[] r : rows.subList((int) ((long) n * p / pieces), (int) ((long) n * (p + 1) / pieces))) {
                ByteBuffer view = ByteBuffer.wrap(r).order(ROW_ORDER);
                part.add(new Keyed(view.getInt(header), view.getLong(header + 8), r));
            }
            part.sort(Comparator.comparingInt(Keyed::key).thenComparingLong(Keyed::sequence));
            int bytes = 0;
            for (Keyed r : part) {
                bytes += 4 + r.row().length;
            }
            ByteBuffer records = ByteBuffer.allocate(bytes).order(ROW_ORDER);
            for (Keyed r : part) {
                records.putInt(r.row().length).put(r.row());
            }
            out.add(new Piece(records.array(), part.size()));
        }
        return out;
    }

    private record Keyed(int key, long sequence, byte[] row) {}

    /**
     * Spills and merges {@code input} under {@code dir} (made if missing; every file it writes is
     * deleted again), giving the rows to {@code sink} in order.
     */
    static Result run(Path dir, Input input, Plan plan, Sink sink) throws IOException {
        Files.createDirectories(dir);
        PlainBlockCodec codec = PlainBlockCodec.of(plan.codec());
        Counters counters = new Counters();
        int header = BinaryRow.calculateBitSetWidthInBytes(input.rowArity());
        long rows = 0;
        for (int b = 0; b < input.buckets().size(); b++) {
            List<Piece> pieces = input.buckets().get(b);
            List<Run> onDisk = new ArrayList<>();
            for (Piece piece : pieces.subList(0, pieces.size() - 1)) {
                onDisk.add(write(dir, new PlainRowStream.Memory(piece, header), plan.block(), codec, counters));
            }
            int streamsFromDisk = plan.fanIn() - 1;
            while (onDisk.size() > streamsFromDisk) {
                onDisk.sort(Comparator.comparingLong(Run::bytes));
                int k = Math.min(plan.fanIn(), onDisk.size() - streamsFromDisk + 1);
                List<Run> merged = new ArrayList<>(onDisk.subList(0, k));
                onDisk.subList(0, k).clear();
                List<PlainRowStream> streams = new ArrayList<>();
                for (Run run : merged) {
                    streams.add(new PlainRowStream.OnDisk(run.file(), codec, header));
                }
                onDisk.add(write(dir, new PlainRowStream.Merged(streams), plan.block(), codec, counters));
                counters.merges++;
                for (PlainRowStream s : streams) {
                    s.close();
                }
            }
            List<PlainRowStream> last = new ArrayList<>();
            for (Run run : onDisk) {
                last.add(new PlainRowStream.OnDisk(run.file(), codec, header));
            }
            last.add(new PlainRowStream.Memory(pieces.get(pieces.size() - 1), header));
            rows += drain(b, new PlainRowStream.Merged(last), sink, counters);
            for (PlainRowStream s : last) {
                s.close();
            }
        }
        codec.close();
        if (rows != input.rows()) {
            throw new IllegalStateException("the plain external sort gave out " + rows + " rows of " + input.rows());
        }
        return new Result(rows, counters.checksum, counters.fileBytes, counters.files, counters.merges);
    }

    /** Gives {@code merged}'s rows to {@code sink}, checking their order. */
    private static long drain(int bucket, PlainRowStream merged, Sink sink, Counters counters) throws IOException {
        long rows = 0;
        int lastKey = Integer.MIN_VALUE;
        long lastSequence = Long.MIN_VALUE;
        while (merged.advance()) {
            if (merged.key < lastKey || (merged.key == lastKey && merged.sequence < lastSequence)) {
                throw new IllegalStateException("the plain external sort gave bucket " + bucket + " out of order");
            }
            lastKey = merged.key;
            lastSequence = merged.sequence;
            counters.checksum += 31L * merged.key + merged.sequence + merged.length;
            sink.row(bucket, merged.bytes, merged.offset, merged.length);
            rows++;
        }
        return rows;
    }

    /** Writes {@code rows} to a new file in blocks. */
    private static Run write(Path dir, PlainRowStream rows, int block, PlainBlockCodec codec, Counters counters) throws IOException {
        Path file = Files.createTempFile(dir, "run-", ".spill");
        byte[] raw = new byte[block];
        ByteBuffer rawView = ByteBuffer.wrap(raw).order(ROW_ORDER);
        byte[] compressed = new byte[codec.bound(block)];
        ByteBuffer head = ByteBuffer.allocateDirect(HEADER);
        int fill = 0;
        long bytes = 0;
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE)) {
            while (rows.advance()) {
                int need = 4 + rows.length;
                if (fill > 0 && fill + need > raw.length) {
                    bytes += flush(out, raw, fill, compressed, head, codec);
                    fill = 0;
                }
                if (need > raw.length) {
                    raw = new byte[need];
                    rawView = ByteBuffer.wrap(raw).order(ROW_ORDER);
                    compressed = new byte[codec.bound(need)];
                }
                rawView.putInt(fill, rows.length);
                System.arraycopy(rows.bytes, rows.offset, raw, fill + 4, rows.length);
                fill += need;
            }
            if (fill > 0) {
                bytes += flush(out, raw, fill, compressed, head, codec);
            }
        }
        counters.files++;
        counters.fileBytes += bytes;
        return new Run(file, bytes);
    }

    private static int flush(FileChannel out, byte[] raw, int length, byte[] compressed, ByteBuffer head, PlainBlockCodec codec)
            throws IOException {
        int size = codec.compress(raw, length, compressed);
        head.clear();
        head.putInt(length).putInt(size).flip();
        ByteBuffer body = ByteBuffer.wrap(compressed, 0, size);
        ByteBuffer[] both = {head, body};
        while (head.hasRemaining() || body.hasRemaining()) {
            out.write(both);
        }
        return HEADER + size;
    }

    /** A file written by {@link #write}, and its bytes. */
    private record Run(Path file, long bytes) {}

    private static final class Counters {
        long checksum;
        long fileBytes;
        int files;
        int merges;
    }
}
