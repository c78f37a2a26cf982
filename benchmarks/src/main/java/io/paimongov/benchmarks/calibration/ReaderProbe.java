package io.paimongov.benchmarks.calibration;

import io.paimongov.benchmarks.BenchTables;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.KeyValue;
import org.apache.paimon.KeyValueFileStore;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.KeyValueFileReaderFactory;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;

/*
 * The child side of the compaction-reader calibration: what one open reader of a primary-key data
 * file keeps on the heap while a compaction merges it (the format reader, its decompression and
 * column buffers, and the batch it has read), outside the file's own row-group bytes. N (partition,
 * bucket) writers each flush ROWS rows into one small level-0 file (stream prepareCommit); then N
 * readers are opened side by side through Paimon's own KeyValueFileReaderFactory, as a compaction's
 * merge opens one per sorted run, and each reads its first batch and first row. The live heap above
 * the baseline (the files written, no reader open) is what N open readers keep; the parent takes
 * the slope between two N. Files are small (ROWS rows of the cell's width), so the figure is a
 * reader's fixed cost; what a row group of a larger file adds is charged as its size (WriteFootprint).
 */
final class ReaderProbe {

    static final String STAGE = "reader";

    private ReaderProbe() {}

    /**
     * One cell at one writer count: {@code KIND FORMAT COMPRESSION VALUE_BYTES PAGE_SIZE
     * ROWS_PER_WRITER WRITERS WORK_DIR} (kind {@code pk}). Prints one line {@code FOOTPRINT
     * writers=N reader=B readerPages=0}.
     */
    public static void main(String[] args) throws Exception {
        ProbeArgs a = ProbeArgs.parse("ReaderProbe", args);
        measure(a.cell(), a.work().resolve("warm-up"), FootprintProbe.WARM_UP_WRITERS, a.rowsPerWriter());
        long[] m = measure(a.cell(), a.work().resolve("measured"), a.writers(), a.rowsPerWriter());
        System.out.println(FootprintProbe.RESULT + " writers=" + m[0] + " " + STAGE + "=" + m[1] + " " + STAGE + "Pages=0");
    }

    /** {readers open, live heap above the baseline while they are open}. */
    static long[] measure(Cell cell, Path dir, int pairs, int rowsPerFile) throws Exception {
        FileStoreTable table = FootprintProbe.create(dir.resolve("warehouse"), cell);
        List<CommitMessage> messages;
        IOManager io = IOManager.create(Files.createDirectories(dir.resolve("io")).toString());
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newStreamWriteBuilder().newWrite()) {
            write.withIOManager(io).withMemoryPoolFactory(new MemoryPoolFactory(new FootprintProbe.CountingPool(cell.pageSize())));
            FootprintProbe.writeEveryPair(write, pairs, rowsPerFile, cell.valueBytes());
            messages = write.prepareCommit(false, 1);
        } finally {
            io.close();
        }
        KeyValueFileReaderFactory.Builder builder = ((KeyValueFileStore) table.store()).newReaderFactoryBuilder();
        List<RecordReader<KeyValue>> readers = new ArrayList<>();
        List<Object> held = new ArrayList<>();
        long heap;
        try {
            long baseline = FootprintProbe.liveHeapBytes();
            for (CommitMessage message : messages) {
                CommitMessageImpl m = (CommitMessageImpl) message;
                KeyValueFileReaderFactory factory = builder.build(m.partition(), m.bucket(), DeletionVector.emptyFactory());
                for (DataFileMeta file : m.newFilesIncrement().newFiles()) {
                    RecordReader<KeyValue> reader = factory.createRecordReader(file);
                    readers.add(reader);
                    RecordReader.RecordIterator<KeyValue> batch = reader.readBatch();
                    held.add(batch);
                    held.add(batch == null ? null : batch.next());
                }
            }
            heap = FootprintProbe.liveHeapBytes() - baseline;
            Reference.reachabilityFence(held);
        } finally {
            for (RecordReader<KeyValue> reader : readers) {
                reader.close();
            }
        }
        BenchTables.deleteTree(dir);
        return new long[] {readers.size(), heap};
    }
}
