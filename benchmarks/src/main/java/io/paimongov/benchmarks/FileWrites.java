package io.paimongov.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * Bytes this JVM wrote to files under a directory, as the JVM's own file I/O events saw them (JDK
 * Flight Recorder's {@code jdk.FileWrite}, every write recorded, whatever its duration): the spill
 * bytes of a write measured from outside the runtime's own count. The events cover {@code
 * FileOutputStream}, {@code RandomAccessFile} and {@code FileChannel} writes, which is every way
 * Paimon's spill channels and the runtime's write their files; a file is matched by its path, so a
 * file written and deleted at once still counts.
 *
 * <p>Use: {@link #start}, the measured work, {@link #bytesUnder}. One recording at a time per
 * instance; not thread-safe. The recording costs an event per write call, so a measure that is timed
 * should not run under it. <b>May throw:</b> {@link IOException} when the recording cannot be
 * written or read back.
 */
public final class FileWrites implements AutoCloseable {

    static final String EVENT = "jdk.FileWrite";
    private final Recording recording = new Recording();
    private final Path dump;

    private FileWrites(Path dump) {
        this.dump = dump;
    }

    /** Starts recording every file write of this JVM; the recording is dumped to {@code dump} when read. */
    public static FileWrites start(Path dump) {
        FileWrites w = new FileWrites(dump);
        w.recording.enable(EVENT).withThreshold(Duration.ZERO).withoutStackTrace();
        w.recording.setToDisk(true);
        w.recording.start();
        return w;
    }

    /**
     * Stops the recording and returns the bytes written to files under {@code root} and not under
     * any of {@code except} (paths compared after {@link Path#toAbsolutePath} and {@link
     * Path#normalize}); the dump is deleted.
     */
    public long bytesUnder(Path root, Path... except) throws IOException {
        recording.stop();
        recording.dump(dump);
        Path base = root.toAbsolutePath().normalize();
        long sum = 0;
        try (RecordingFile file = new RecordingFile(dump)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                if (!e.getEventType().getName().equals(EVENT) || e.getString("path") == null) {
                    continue;
                }
                Path p = Path.of(e.getString("path")).toAbsolutePath().normalize();
                if (p.startsWith(base) && !excluded(p, except)) {
                    sum += Math.max(0, e.getLong("bytesWritten"));
                }
            }
        } finally {
            Files.deleteIfExists(dump);
        }
        return sum;
    }

    private static boolean excluded(Path p, Path[] except) {
        for (Path x : except) {
            if (p.startsWith(x.toAbsolutePath().normalize())) {
                return true;
            }
        }
        return false;
    }

    /** Ends the recording (if still running) and deletes its dump; idempotent. */
    @Override
    public void close() throws IOException {
        recording.close();
        Files.deleteIfExists(dump);
    }
}
