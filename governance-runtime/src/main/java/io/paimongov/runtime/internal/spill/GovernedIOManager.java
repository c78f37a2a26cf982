package io.paimongov.runtime.internal.spill;

import io.paimongov.runtime.internal.counters.BoundedAdd;
import io.paimongov.runtime.internal.files.PrivateFiles;
import io.paimongov.runtime.spill.FreeSpaceAtFailure;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.spi.ResourceExhaustedException.Holder;
import io.paimongov.spi.ResourceExhaustedException.Resource;
import io.paimongov.spi.ResourceExhaustedException;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.apache.paimon.disk.BufferFileReader;
import org.apache.paimon.disk.BufferFileWriter;
import org.apache.paimon.disk.BufferFileWriterImpl;
import org.apache.paimon.disk.FileIOChannel;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.memory.Buffer;

/**
 * Paimon's {@link IOManager} confined to one {@link SpillScope}: every spill file Paimon makes is
 * created here, counted, and held to the spill byte budget. Paimon's own {@code
 * write-buffer-spill.max-disk-size} is only checked when a writer is preempted; this budget is
 * checked on every block written.
 *
 * <p>The scope is made when the write first needs its disk ({@link SpillScope#make()}): when a spill
 * file is created, a channel is named ({@link #createChannel()}) or a temp directory is handed out
 * ({@link #tempDirs()}, {@link #pickTempDir()}), never when a channel enumerator is made (Paimon
 * makes one with every writer's sort buffer). An enumerator names its channels under the scope's
 * directory as it is when the enumerator is made; so one made before the scope was, by Paimon's own
 * sort buffer, names channels under the root chosen at open, and if the scope then had to be made
 * under a later root, those channels are refused as outside it (the spill fails with an {@link
 * IOException}). The runtime's own sort buffer makes its enumerator at its first spill.
 *
 * <p>Confinement: a channel whose path, normalised, is not inside the scope is refused with an
 * {@link IOException} before anything is created. Each spill file is created owner-only (0600 on
 * POSIX file systems) before Paimon opens it, so its bytes are never readable by another user even
 * for a moment; elsewhere the file system's defaults apply.
 *
 * <p>Disk use is the bytes written to spill files that still exist. Paimon deletes spill files by
 * path, so deletions are noticed by looking at the tracked files when the budget would be
 * exceeded, before failing.
 *
 * <p><b>Thread-safety:</b> thread-safe; Paimon calls it from the writing thread and compaction
 * threads. <b>May throw:</b> {@link ResourceExhaustedException} ({@code SPILL_DISK}) when a block
 * would pass the budget; what {@code checkCancelled} throws (cancellation) when a file is created and
 * before each block is written to or read from a spill file, so a long spill or merge stops within
 * a block of a cancel; {@link java.io.UncheckedIOException} when the scope cannot be made ({@link
 * SpillScope#make()}). {@link #close()} deletes the scope and every spill file in it, if it was made.
 */
public final class GovernedIOManager implements IOManager {

    /** Bytes of a block's size in a spill file, before the block. */
    private static final int BLOCK_HEADER = 4;
    /** Channels of Paimon's enumerator: the sort buffer writes one per spill run. */
    private static final Pattern SPILL_RUN = Pattern.compile(".*\\.\\d{6}\\.channel$");

    private final SpillScope scope;
    private final long maxBytes;
    private final Runnable checkCancelled;
    private final Random random = new Random();
    private final Map<String, AtomicLong> onDisk = new ConcurrentHashMap<>();
    private final AtomicLong diskBytes = new AtomicLong();
    private final LongAdder files = new LongAdder();
    private final LongAdder runs = new LongAdder();
    private final LongAdder written = new LongAdder();
    private final LongAdder refused = new LongAdder();
    /** Writers and readers made here and not closed yet: {@link #close()} closes them before it deletes their files. */
    private final Set<FileIOChannel> open = ConcurrentHashMap.newKeySet();

    /**
     * @param checkCancelled runs before each spill file is created and before each block is written
     *     or read (the cancellation check)
     */
    public GovernedIOManager(SpillScope scope, long maxBytes, Runnable checkCancelled) {
        this.scope = scope;
        this.maxBytes = maxBytes;
        this.checkCancelled = checkCancelled;
    }

    /** The scope's directory, made now if it was not yet. */
    private File made() {
        return scope.make().toFile();
    }

    @Override
    public FileIOChannel.ID createChannel() {
        return new FileIOChannel.ID(made(), 0, random);
    }

    @Override
    public FileIOChannel.ID createChannel(String prefix) {
        return new FileIOChannel.ID(made(), 0, prefix, random);
    }

    @Override
    public String[] tempDirs() {
        return new String[] {made().getAbsolutePath()};
    }

    @Override
    public String pickTempDir() {
        return made().getAbsolutePath();
    }

    /** Does not make the scope: see the class comment. */
    @Override
    public FileIOChannel.Enumerator createChannelEnumerator() {
        return new FileIOChannel.Enumerator(new File[] {scope.dir().toFile()}, random);
    }

    @Override
    public BufferFileWriter createBufferFileWriter(FileIOChannel.ID channel) throws IOException {
        checkCancelled.run();
        Path scopeDir = scope.make().toAbsolutePath().normalize();
        Path file = channel.getPathFile().toPath().toAbsolutePath().normalize();
        if (!file.startsWith(scopeDir) || file.equals(scopeDir)) {
            throw new IOException("spill file " + channel.getPath() + " is outside the write's spill scope " + scope);
        }
        String path = channel.getPath();
        try {
            PrivateFiles.createPrivateFile(file);
        } catch (IOException e) {
            // What opening the file would have thrown (the scope removed under the write, a full disk).
            FileNotFoundException cannot = new FileNotFoundException(
                    "cannot create spill file " + path + " in the write's spill scope " + scope + ": " + e);
            cannot.initCause(e);
            throw cannot;
        }
        AtomicLong fileBytes = new AtomicLong();
        AtomicLong previous = onDisk.put(path, fileBytes);
        if (previous != null) {
            diskBytes.addAndGet(-previous.get());
        }
        files.increment();
        if (SPILL_RUN.matcher(path).matches()) {
            runs.increment();
        }
        return tracked(new CountedWriter(channel, fileBytes));
    }

    @Override
    public BufferFileReader createBufferFileReader(FileIOChannel.ID channel) throws IOException {
        return tracked(new SpillBlockReader(channel, checkCancelled, open::remove));
    }

    private <C extends FileIOChannel> C tracked(C channel) {
        open.add(channel);
        return channel;
    }

    private void account(AtomicLong fileBytes, long bytes) {
        if (BoundedAdd.addWithin(diskBytes, bytes, maxBytes) < 0) {
            forgetDeleted();
            if (BoundedAdd.addWithin(diskBytes, bytes, maxBytes) < 0) {
                refused.increment();
                throw new ResourceExhaustedException(
                        Resource.SPILL_DISK,
                        "spill file writer",
                        bytes,
                        diskBytes.get(),
                        maxBytes,
                        List.of(new Holder("spill scope " + scope, diskBytes.get())),
                        null);
            }
        }
        fileBytes.addAndGet(bytes);
        written.add(bytes);
    }

    private void forgetDeleted() {
        onDisk.entrySet()
                .removeIf(
                        e -> {
                            if (new File(e.getKey()).exists()) {
                                return false;
                            }
                            diskBytes.addAndGet(-e.getValue().get());
                            return true;
                        });
    }

    /** Blocks refused because they would pass the spill byte budget (exact). */
    public long refusedCount() {
        return refused.sum();
    }

    /** Spill files created (exact). */
    public long spillFiles() {
        return files.sum();
    }

    /** Sort-buffer spill runs written (exact): one per spill of a write buffer. */
    public long spillRuns() {
        return runs.sum();
    }

    /** Bytes written to spill files, deleted ones included (exact: block bytes plus headers). */
    public long spillBytes() {
        return written.sum();
    }

    /** Spill files in the scope now (counts the directory; 0 while the scope is not made). */
    public long filesLeft() {
        if (!scope.isMade()) {
            return 0;
        }
        File[] left = scope.dir().toFile().listFiles((d, name) -> name.endsWith(".channel"));
        return left == null ? 0 : left.length;
    }

    public SpillScope scope() {
        return scope;
    }

    /**
     * Bytes of spill files this write holds on disk, as counted (blocks plus headers of files that
     * still exist, as far as the last look showed). 0 after a close that deleted the scope. Exact.
     */
    public long diskBytes() {
        return diskBytes.get();
    }

    /**
     * Closes every spill file writer and reader still open (a failed write may leave one, which
     * would hold its deleted file's space until the JVM exits), then deletes every spill file and
     * the scope, if it was made (nothing is made after this), each step run even when another failed. The disk counters then follow what is really gone:
     * a file that could not be deleted stays counted in {@link #diskBytes()} and in {@code
     * spillFilesLeft}. Idempotent once it succeeded.
     *
     * @throws java.io.UncheckedIOException when a channel could not be closed, or the scope or a
     *     file in it could not be deleted
     *     ({@link SpillScope#delete()})
     */
    @Override
    public void close() {
        // A writer or reader that a failed write never closed (a spill that met a full disk) would
        // keep its deleted file's blocks on the disk until the JVM exits: close each first.
        List<IOException> unclosed = new ArrayList<>();
        for (FileIOChannel channel : List.copyOf(open)) {
            try {
                channel.close();
            } catch (IOException e) {
                unclosed.add(e);
            } finally {
                open.remove(channel);
            }
        }
        try {
            scope.delete();
        } catch (UncheckedIOException e) {
            unclosed.forEach(e::addSuppressed);
            throw e;
        } finally {
            forgetDeleted();
        }
        if (!unclosed.isEmpty()) {
            UncheckedIOException failure = new UncheckedIOException(
                    "cannot close " + unclosed.size() + " spill file channel(s) of " + scope + " (the files are deleted)",
                    unclosed.get(0));
            unclosed.subList(1, unclosed.size()).forEach(failure::addSuppressed);
            throw failure;
        }
    }

    /** A Paimon buffer file writer whose blocks are counted and budgeted before they are written. */
    private final class CountedWriter extends BufferFileWriterImpl {
        private final AtomicLong fileBytes;
        private final ByteBuffer header = ByteBuffer.allocateDirect(BLOCK_HEADER);
        private final ByteBuffer[] sizeAndBlock = {header, null};

        CountedWriter(FileIOChannel.ID channel, AtomicLong fileBytes) throws IOException {
            super(channel);
            this.fileBytes = fileBytes;
        }

        /**
         * Writes the block as Paimon's writer does (a 4-byte size, then the bytes), in one
         * gathering system call and with one header buffer for the file, where Paimon's makes a
         * direct buffer and two calls per block.
         */
        @Override
        public void writeBlock(Buffer buffer) throws IOException {
            checkCancelled.run();
            account(fileBytes, buffer.getSize() + 4L);
            header.clear();
            header.putInt(buffer.getSize()).flip();
            ByteBuffer block = buffer.getMemorySegment().wrap(0, buffer.getSize()).slice();
            sizeAndBlock[1] = block;
            try {
                while (header.hasRemaining() || block.hasRemaining()) {
                    fileChannel.write(sizeAndBlock);
                }
            } catch (IOException e) {
                throw FreeSpaceAtFailure.attach(e, Path.of(getChannelID().getPath()));
            } finally {
                sizeAndBlock[1] = null;
            }
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            } catch (IOException e) {
                throw FreeSpaceAtFailure.attach(e, Path.of(getChannelID().getPath()));
            } finally {
                open.remove(this);
            }
        }
    }
}
