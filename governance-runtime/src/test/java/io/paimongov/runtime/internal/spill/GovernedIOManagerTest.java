package io.paimongov.runtime.internal.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.ResourceExhaustedException;
import io.paimongov.spi.WriteCancelledException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.paimon.disk.BufferFileReader;
import org.apache.paimon.disk.BufferFileReaderImpl;
import org.apache.paimon.disk.BufferFileWriter;
import org.apache.paimon.disk.BufferFileWriterImpl;
import org.apache.paimon.disk.FileIOChannel;
import org.apache.paimon.memory.Buffer;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GovernedIOManagerTest {

    private static final int BLOCK = 64 << 10;

    @TempDir Path root;

    private GovernedIOManager manager(long maxBytes, Runnable check) {
        SpillScope scope = SpillScope.create(SpillLocations.of(List.of(root), Long.MAX_VALUE), "t");
        return new GovernedIOManager(scope, maxBytes, check);
    }

    /** A manager whose scope is not made yet, as a write's is when it opens. */
    private GovernedIOManager lazy(Runnable check) {
        return new GovernedIOManager(SpillScope.open(SpillLocations.of(List.of(root), Long.MAX_VALUE), "t"), Long.MAX_VALUE, check);
    }

    private List<Path> underRoot() throws Exception {
        try (Stream<Path> children = Files.list(root)) {
            return children.toList();
        }
    }

    private static Buffer block() {
        return Buffer.create(MemorySegment.wrap(new byte[BLOCK]), BLOCK);
    }

    @Test
    void countsFilesRunsAndBytesInsideTheScope() throws Exception {
        GovernedIOManager io = manager(Long.MAX_VALUE, () -> {});
        FileIOChannel.ID run = io.createChannelEnumerator().next();
        FileIOChannel.ID merged = io.createChannel();
        assertThat(run.getPathFile().toPath().getParent()).isEqualTo(io.scope().dir());
        for (FileIOChannel.ID id : List.of(run, merged)) {
            BufferFileWriter w = io.createBufferFileWriter(id);
            w.writeBlock(block());
            w.close();
        }
        assertThat(io.spillFiles()).isEqualTo(2);
        assertThat(io.spillRuns()).isEqualTo(1);
        assertThat(io.spillBytes()).isEqualTo(2L * (BLOCK + 4));
        assertThat(io.filesLeft()).isEqualTo(2);
        io.close();
        assertThat(io.filesLeft()).isZero();
        assertThat(io.scope().exists()).isFalse();
    }

    @Test
    void closeClosesTheWritersAndReadersAFailedWriteLeftOpenSoNoDeletedFileKeepsItsSpace() throws Exception {
        GovernedIOManager io = manager(Long.MAX_VALUE, () -> {});
        FileIOChannel.ID first = io.createChannel();
        BufferFileWriter written = io.createBufferFileWriter(first);
        written.writeBlock(block());
        written.close();
        BufferFileReader reader = io.createBufferFileReader(first);
        BufferFileWriter abandoned = io.createBufferFileWriter(io.createChannel());
        abandoned.writeBlock(block());

        io.close();

        assertThat(abandoned.isClosed()).isTrue();
        assertThat(reader.isClosed()).isTrue();
        assertThat(io.scope().exists()).isFalse();
        // What the kernel says this process still holds open under the deleted scope.
        assertThat(openFilesUnder(io.scope().dir())).isEmpty();
    }

    @Test
    void aCancelStopsASpillOrAMergeAtItsNextBlock() throws Exception {
        AtomicBoolean cancelled = new AtomicBoolean();
        GovernedIOManager io = manager(Long.MAX_VALUE, () -> {
            if (cancelled.get()) {
                throw new WriteCancelledException("test");
            }
        });
        FileIOChannel.ID id = io.createChannel();
        BufferFileWriter writer = io.createBufferFileWriter(id);
        writer.writeBlock(block());
        writer.writeBlock(block());
        BufferFileWriter spilling = io.createBufferFileWriter(io.createChannel());
        spilling.writeBlock(block());
        writer.close();
        BufferFileReader reader = io.createBufferFileReader(id);
        reader.readInto(Buffer.create(MemorySegment.wrap(new byte[BLOCK])));

        cancelled.set(true);
        long written = io.spillBytes();
        // A spill already writing, and a merge already reading, stop at their next block.
        assertThatThrownBy(() -> spilling.writeBlock(block())).isInstanceOf(WriteCancelledException.class);
        assertThatThrownBy(() -> reader.readInto(Buffer.create(MemorySegment.wrap(new byte[BLOCK]))))
                .isInstanceOf(WriteCancelledException.class);
        assertThat(io.spillBytes()).as("nothing written after the cancel").isEqualTo(written);
        io.close();
    }

    /**
     * The manager's writer and reader keep Paimon's block format (a 4-byte size, then the bytes)
     * with fewer system calls: Paimon's own {@link BufferFileReaderImpl} and {@link
     * BufferFileWriterImpl} are the model, each reading what the other wrote, block for block, with
     * the end of the file seen after the last block and not before.
     */
    @Test
    void blocksReadBackAsWithPaimonsOwnReaderAndWriter() throws Exception {
        GovernedIOManager io = manager(Long.MAX_VALUE, () -> {});
        List<byte[]> blocks = List.of(bytes(1, 3000), bytes(2, 1), bytes(3, BLOCK), bytes(4, 17), bytes(5, 4096));

        FileIOChannel.ID ours = io.createChannel();
        BufferFileWriter writer = io.createBufferFileWriter(ours);
        for (byte[] b : blocks) {
            writer.writeBlock(Buffer.create(MemorySegment.wrap(b.clone()), b.length));
        }
        writer.close();
        assertThat(readAll(new BufferFileReaderImpl(ours), blocks.size())).as("Paimon's reader, our file").containsExactlyElementsOf(blocks);

        FileIOChannel.ID paimons = io.createChannel();
        BufferFileWriterImpl paimon = new BufferFileWriterImpl(paimons) {};
        for (byte[] b : blocks) {
            paimon.writeBlock(Buffer.create(MemorySegment.wrap(b.clone()), b.length));
        }
        paimon.close();
        BufferFileReader reader = io.createBufferFileReader(paimons);
        assertThat(readAll(reader, blocks.size())).as("our reader, Paimon's file").containsExactlyElementsOf(blocks);
        assertThatThrownBy(() -> reader.readInto(Buffer.create(MemorySegment.wrap(new byte[BLOCK]))))
                .isInstanceOf(java.io.EOFException.class)
                .hasMessageContaining("no block left");
        reader.close();

        // A file cut inside its last block.
        try (java.nio.channels.FileChannel f = java.nio.channels.FileChannel.open(ours.getPathFile().toPath(),
                java.nio.file.StandardOpenOption.WRITE)) {
            f.truncate(f.size() - 10);
        }
        BufferFileReader cut = io.createBufferFileReader(ours);
        for (int i = 0; i < blocks.size() - 1; i++) {
            cut.readInto(Buffer.create(MemorySegment.wrap(new byte[BLOCK])));
        }
        assertThatThrownBy(() -> cut.readInto(Buffer.create(MemorySegment.wrap(new byte[BLOCK]))))
                .isInstanceOf(java.io.EOFException.class)
                .hasMessageContaining("ends inside a block of 4096 bytes");
        io.close();
    }

    /** Reads {@code count} blocks; the end of the file is reported after the last one only. */
    private static List<byte[]> readAll(BufferFileReader reader, int count) throws java.io.IOException {
        List<byte[]> read = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            assertThat(reader.hasReachedEndOfFile()).as("end of file before block " + i).isFalse();
            Buffer buffer = Buffer.create(MemorySegment.wrap(new byte[BLOCK]));
            reader.readInto(buffer);
            read.add(java.util.Arrays.copyOf(buffer.getMemorySegment().getArray(), buffer.getSize()));
        }
        assertThat(reader.hasReachedEndOfFile()).as("end of file after the last block").isTrue();
        return read;
    }

    private static byte[] bytes(long seed, int length) {
        byte[] b = new byte[length];
        new java.util.SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** This process's open file descriptors whose target lies under {@code dir} (deleted ones included). */
    private static List<String> openFilesUnder(Path dir) throws java.io.IOException {
        List<String> held = new java.util.ArrayList<>();
        try (java.util.stream.Stream<Path> fds = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = java.nio.file.Files.readSymbolicLink(fd).toString();
                    if (target.startsWith(dir.toString())) {
                        held.add(target);
                    }
                } catch (java.io.IOException closedWhileListed) {
                    // The descriptor of the listing itself, or one closed meanwhile.
                }
            }
        }
        return held;
    }

    @Test
    void theSpillBudgetIsEnforcedOnEveryBlock() throws Exception {
        GovernedIOManager io = manager(3L * BLOCK, () -> {});
        BufferFileWriter w = writerWithTwoBlocks(io);
        assertThatThrownBy(() -> w.writeBlock(block()))
                .isInstanceOfSatisfying(
                        ResourceExhaustedException.class,
                        e -> assertThat(e.resource()).isEqualTo(ResourceExhaustedException.Resource.SPILL_DISK))
                .hasMessageContaining("spill disk exhausted: 'spill file writer' asked for 65540 bytes");
        w.closeAndDelete();
        io.close();
    }

    @Test
    void deletedFilesGiveTheirBytesBack() throws Exception {
        GovernedIOManager io = manager(3L * BLOCK, () -> {});
        writerWithTwoBlocks(io).closeAndDelete();
        // Four blocks in all under a three-block budget: the second file fits only because the first one's bytes came back.
        BufferFileWriter second = writerWithTwoBlocks(io);
        assertThat(io.spillBytes()).as("all four blocks were written").isEqualTo(4L * (BLOCK + 4));
        second.close();
        io.close();
    }

    @Test
    void fileCreationChecksCancellation() {
        AtomicBoolean cancelled = new AtomicBoolean(true);
        GovernedIOManager io =
                manager(
                        Long.MAX_VALUE,
                        () -> {
                            if (cancelled.get()) {
                                throw new WriteCancelledException("stop");
                            }
                        });
        assertThatThrownBy(() -> io.createBufferFileWriter(io.createChannel()))
                .isInstanceOf(WriteCancelledException.class);
        assertThat(io.spillFiles()).isZero();
        io.close();
    }

    @Test
    void filesOutsideTheScopeAreRefused() {
        GovernedIOManager io = manager(Long.MAX_VALUE, () -> {});
        FileIOChannel.ID outside = new FileIOChannel.ID(root.toFile(), 0, new java.util.Random());
        assertThatThrownBy(() -> io.createBufferFileWriter(outside)).hasMessageContaining("outside the write's spill scope");
        io.close();
    }

    /** A new spill file of {@code io} holding two blocks. */
    private static BufferFileWriter writerWithTwoBlocks(GovernedIOManager io) throws Exception {
        BufferFileWriter w = io.createBufferFileWriter(io.createChannel());
        w.writeBlock(block());
        w.writeBlock(block());
        return w;
    }

    @Test
    void theScopeIsMadeByTheFirstSpillFileNotWhenAnEnumeratorNamesChannels() throws Exception {
        GovernedIOManager io = lazy(() -> {});
        FileIOChannel.Enumerator runs = io.createChannelEnumerator();
        FileIOChannel.ID run = runs.next();
        assertThat(underRoot()).as("on disk before the first spill file").isEmpty();
        assertThat(io.filesLeft()).isZero();
        BufferFileWriter w = io.createBufferFileWriter(run);
        w.writeBlock(block());
        w.close();
        assertThat(underRoot()).containsExactly(io.scope().dir());
        assertThat(run.getPathFile().toPath().getParent()).isEqualTo(io.scope().dir());
        assertThat(io.filesLeft()).isEqualTo(1);
        io.close();
        assertThat(underRoot()).isEmpty();
    }

    @Test
    void namingAChannelOrHandingOutATempDirMakesTheScope() throws Exception {
        GovernedIOManager named = lazy(() -> {});
        FileIOChannel.ID id = named.createChannel("lookup");
        assertThat(id.getPathFile().toPath().getParent()).isEqualTo(named.scope().dir()).exists();
        named.close();
        GovernedIOManager temp = lazy(() -> {});
        assertThat(Path.of(temp.pickTempDir())).isEqualTo(temp.scope().dir()).exists();
        assertThat(temp.tempDirs()).containsExactly(temp.pickTempDir());
        temp.close();
        assertThat(underRoot()).isEmpty();
    }

    @Test
    void aCancelledWriteNeverMakesItsScope() throws Exception {
        GovernedIOManager io = lazy(() -> {
            throw new WriteCancelledException("stop");
        });
        FileIOChannel.ID run = io.createChannelEnumerator().next();
        assertThatThrownBy(() -> io.createBufferFileWriter(run)).isInstanceOf(WriteCancelledException.class);
        assertThat(underRoot()).isEmpty();
        io.close();
    }

    @Test
    void nothingIsMadeAfterClose() throws Exception {
        GovernedIOManager io = lazy(() -> {});
        FileIOChannel.ID run = io.createChannelEnumerator().next();
        io.close();
        assertThatThrownBy(() -> io.createBufferFileWriter(run))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("was deleted: its write is closed");
        assertThatThrownBy(io::pickTempDir).isInstanceOf(UncheckedIOException.class);
        assertThat(underRoot()).isEmpty();
    }
}
