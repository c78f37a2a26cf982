package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.FileOutputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM's own file-write events against bytes written by hand through every API a spill channel
 * uses (exact), and against a spilling governed write's own count of its spill bytes (within 1%:
 * they are two counts of the same files, the runtime's of what it hands to its channels, the JVM's
 * of what reached them, which also sees the spill scope's lease file of some 65 bytes).
 */
class FileWritesTest {

    @TempDir Path dir;

    @Test
    void everyWayOfWritingAFileIsCountedUnderItsDirectoryOnly() throws Exception {
        Path in = Files.createDirectories(dir.resolve("in"));
        Path out = Files.createDirectories(dir.resolve("out"));
        Path skipped = Files.createDirectories(in.resolve("skipped"));
        try (FileWrites writes = FileWrites.start(dir.resolve("rec.jfr"))) {
            try (FileOutputStream s = new FileOutputStream(in.resolve("a").toFile())) {
                s.write(new byte[1000]);
            }
            try (RandomAccessFile f = new RandomAccessFile(in.resolve("b").toFile(), "rw"); FileChannel c = f.getChannel()) {
                c.write(ByteBuffer.allocateDirect(3000));
                c.write(new ByteBuffer[] {ByteBuffer.allocate(100), ByteBuffer.allocate(200)});
            }
            try (FileChannel c = FileChannel.open(in.resolve("c"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                c.write(ByteBuffer.allocate(700), 50);
            }
            Files.delete(in.resolve("c"));
            Files.write(out.resolve("d"), new byte[5000]);
            Files.write(skipped.resolve("e"), new byte[400]);
            assertThat(writes.bytesUnder(in, skipped)).isEqualTo(1000 + 3000 + 300 + 700);
        }
        assertThat(dir.resolve("rec.jfr")).doesNotExist();
    }

    @Test
    void aSpillingWritesSpillFilesAreSeenAsItCountsThem() throws Exception {
        var table = BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(2));
        BenchTables.Rows rows = new BenchTables.Rows(7, 20_000, 256);
        long counted;
        long seen;
        try (FileWrites writes = FileWrites.start(dir.resolve("rec.jfr"))) {
            var write = BenchTables.governedWrite(table, "file-writes", 4L << 20, Files.createDirectories(dir.resolve("spill")), Map.of());
            try (write) {
                for (int i = 0; i < 20_000; i++) {
                    write.write(rows.next());
                }
                write.prepareCommit().commit();
            }
            counted = write.metrics().spillBytes();
            seen = writes.bytesUnder(dir.resolve("spill"));
        }
        assertThat(counted).as("the write spilled").isPositive();
        assertThat(seen).isCloseTo(counted, org.assertj.core.data.Percentage.withPercentage(1));
    }
}
