package io.paimongov.benchmarks.calibration;

import io.paimongov.benchmarks.BenchTables;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;

/*
 * The child side of the commit-message calibration: what the commit message of one closed writer
 * keeps on the heap (its data file's metadata: file name and path, statistics, key range, and the
 * message around it), which a write holds for every writer it closed until the commit. A full
 * collection gives the baseline with the table made and no write open; N (partition, bucket)
 * writers each get their rows and one stream prepareCommit, so each message carries the one data
 * file its writer flushed; the write is closed (its writers are gone) and the messages kept; the
 * live heap above the baseline is what N messages keep. The baseline is taken after the same
 * write ran once and dropped its messages, so what closed writes leave behind is in it too. The
 * parent takes the slope between two N.
 */
final class MessageProbe {

    static final String STAGE = "message";

    private MessageProbe() {}

    /**
     * One cell at one writer count: {@code KIND FORMAT COMPRESSION VALUE_BYTES PAGE_SIZE
     * ROWS_PER_WRITER WRITERS WORK_DIR}. Prints one line {@code FOOTPRINT writers=N message=B
     * messagePages=0}.
     */
    public static void main(String[] args) throws Exception {
        ProbeArgs a = ProbeArgs.parse("MessageProbe", args);
        Cell cell = a.cell();
        int rows = a.rowsPerWriter();
        int writers = a.writers();
        Path work = a.work();
        measure(cell, work.resolve("warm-up"), FootprintProbe.WARM_UP_WRITERS, rows);
        long[] m = measure(cell, work.resolve("measured"), writers, rows);
        System.out.println(FootprintProbe.RESULT + " writers=" + m[0] + " " + STAGE + "=" + m[1] + " " + STAGE + "Pages=0");
    }

    /**
     * {messages, live heap above the baseline while they are kept}. The same write runs twice on
     * tables of its own: the first drops its messages and gives the baseline, so whatever a closed
     * write leaves behind besides its messages (caches Paimon and the formats keep) is in both.
     */
    static long[] measure(Cell cell, Path dir, int pairs, int rowsPerWriter) throws Exception {
        write(cell, dir.resolve("dropped"), pairs, rowsPerWriter);
        long baseline = FootprintProbe.liveHeapBytes();
        List<CommitMessage> messages = write(cell, dir.resolve("kept"), pairs, rowsPerWriter);
        long held = FootprintProbe.liveHeapBytes() - baseline;
        Reference.reachabilityFence(messages);
        BenchTables.deleteTree(dir);
        return new long[] {messages.size(), held};
    }

    private static List<CommitMessage> write(Cell cell, Path dir, int pairs, int rowsPerWriter) throws Exception {
        FileStoreTable table = FootprintProbe.create(dir.resolve("warehouse"), cell);
        IOManager io = IOManager.create(Files.createDirectories(dir.resolve("io")).toString());
        try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newStreamWriteBuilder().newWrite()) {
            write.withIOManager(io).withMemoryPoolFactory(new MemoryPoolFactory(new FootprintProbe.CountingPool(cell.pageSize())));
            FootprintProbe.writeEveryPair(write, pairs, rowsPerWriter, cell.valueBytes());
            return write.prepareCommit(false, 1);
        } finally {
            io.close();
        }
    }
}
