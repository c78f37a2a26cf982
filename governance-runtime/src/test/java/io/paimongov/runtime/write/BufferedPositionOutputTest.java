package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The buffer in front of a Parquet data file's stream, over Paimon's own local file stream: the
 * file holds exactly what a model (a {@link ByteArrayOutputStream} given the same writes) holds,
 * {@code getPos} follows the model at every step, small writes reach the file stream as a few
 * writes, and large ones reach it whole.
 */
class BufferedPositionOutputTest {

    @TempDir Path dir;

    /** Paimon's local file stream, with the sizes of the writes that reach it recorded. */
    private static final class Recorded extends PositionOutputStream {
        final PositionOutputStream file;
        final List<Integer> writes = new ArrayList<>();

        Recorded(PositionOutputStream file) {
            this.file = file;
        }

        @Override
        public long getPos() throws IOException {
            return file.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            writes.add(1);
            file.write(b);
        }

        @Override
        public void write(byte[] b) throws IOException {
            write(b, 0, b.length);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            writes.add(len);
            file.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            file.flush();
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }

    private Recorded open(Path file) throws IOException {
        return new Recorded(LocalFileIO.create().newOutputStream(new org.apache.paimon.fs.Path(file.toUri()), false));
    }

    @Test
    void theFileHoldsWhatTheModelHoldsWhateverTheWrites() throws Exception {
        Path file = dir.resolve("data-1.parquet");
        Recorded recorded = open(file);
        BufferedPositionOutput out = new BufferedPositionOutput(recorded);
        ByteArrayOutputStream model = new ByteArrayOutputStream();
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 5_000; i++) {
            int op = random.nextInt(10);
            if (op < 5) {
                int b = random.nextInt(256);
                out.write(b);
                model.write(b);
            } else if (op < 9) {
                // Mostly small, now and then as large as the buffer or larger.
                int length = random.nextInt(20) == 0 ? random.nextInt(BufferedPositionOutput.SIZE * 3) : random.nextInt(60);
                byte[] bytes = new byte[length + 4];
                random.nextBytes(bytes);
                out.write(bytes, 2, length);
                model.write(bytes, 2, length);
            } else {
                out.flush();
            }
            assertThat(out.getPos()).isEqualTo(model.size());
        }
        out.close();
        assertThat(Files.readAllBytes(file)).isEqualTo(model.toByteArray());
        // Every write that reached the file was a whole buffer, a large write passed through, or
        // what a flush or the close found buffered: far fewer than the 5,000 writes made.
        assertThat(recorded.writes.size()).isLessThan(1_000);
        assertThat(recorded.writes).doesNotContain(0);
    }

    @Test
    void smallWritesReachTheFileAsFullBuffersAndLargeOnesWhole() throws Exception {
        Path file = dir.resolve("data-2.parquet");
        Recorded recorded = open(file);
        BufferedPositionOutput out = new BufferedPositionOutput(recorded);
        for (int i = 0; i < 3 * BufferedPositionOutput.SIZE; i++) {
            out.write(i);
        }
        assertThat(recorded.writes).containsExactly(BufferedPositionOutput.SIZE, BufferedPositionOutput.SIZE);
        byte[] large = new byte[BufferedPositionOutput.SIZE + 1];
        out.write(large, 0, large.length);
        // What was buffered first, then the large write in one piece.
        assertThat(recorded.writes).containsExactly(
                BufferedPositionOutput.SIZE, BufferedPositionOutput.SIZE, BufferedPositionOutput.SIZE, large.length);
        out.close();
        assertThat(Files.size(file)).isEqualTo(4L * BufferedPositionOutput.SIZE + 1);
    }

    @Test
    void aCloseWhoseLastWriteFailsClosesTheStreamAndThrows() throws Exception {
        Recorded recorded = open(dir.resolve("data-3.parquet"));
        BufferedPositionOutput out = new BufferedPositionOutput(recorded);
        out.write(new byte[100], 0, 100);
        recorded.file.close();
        // The file stream was closed under it: writing the buffer out fails, and the error is thrown.
        assertThatThrownBy(out::close).isInstanceOf(IOException.class);
        assertThat(Files.size(dir.resolve("data-3.parquet"))).isZero();
    }

    @Test
    void onlyParquetFilesAreBuffered() {
        assertThat(BufferedPositionOutput.buffers("data-5f2e-0.parquet")).isTrue();
        assertThat(BufferedPositionOutput.buffers("changelog-5f2e-0.parquet")).isTrue();
        assertThat(BufferedPositionOutput.buffers("data-5f2e-0.orc")).isFalse();
        assertThat(BufferedPositionOutput.buffers("data-5f2e-0.avro")).isFalse();
    }
}
