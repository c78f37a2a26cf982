package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * COMPACT-1's watch of a table's files: two compaction threads reading one bucket's data files at
 * once are an overlap; one after the other, other buckets, other threads and other files are not.
 */
class CompactionReadsTest {

    @TempDir java.nio.file.Path dir;

    @Test
    void twoCompactionThreadsReadingOneBucketAtOnceAreAnOverlap() throws Exception {
        Path a0 = file("p=0/bucket-0/data-a.parquet");
        Path b0 = file("p=0/bucket-0/data-b.parquet");
        Path c1 = file("p=0/bucket-1/data-c.parquet");
        Path manifest = file("manifest/manifest-1");
        Set<String> compacting = Set.of("compact-1", "compact-2");
        CompactionReads reads = new CompactionReads(LocalFileIO.create(), t -> compacting.contains(t.getName()));

        CountDownLatch opened = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread first = new Thread(() -> {
            try (SeekableInputStream in = reads.newInputStream(a0)) {
                opened.countDown();
                done.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "compact-1");
        first.start();
        opened.await();
        // Another compaction thread, another bucket; a thread that does not compact, the same bucket;
        // a file that is no data file: none of them overlaps.
        run("compact-2", () -> reads.newInputStream(c1).close());
        run("writer", () -> reads.newInputStream(b0).close());
        run("compact-2", () -> reads.newInputStream(manifest).close());
        assertEquals(List.of(), reads.overlaps());
        // The same bucket on another compaction thread while the first reads it.
        run("compact-2", () -> reads.newInputStream(b0).close());
        done.countDown();
        first.join();
        List<String> overlaps = reads.overlaps();
        assertEquals(1, overlaps.size(), overlaps.toString());
        assertTrue(overlaps.get(0).startsWith("thread 'compact-2' opened data-b.parquet of p=0/bucket-0 while thread 'compact-1'"), overlaps.get(0));
        // Once the first closed, reading the bucket again is serial.
        run("compact-2", () -> reads.newInputStream(a0).close());
        assertEquals(1, reads.overlaps().size(), reads.overlaps().toString());
        assertEquals(Set.of("p=0/bucket-0", "p=0/bucket-1"), reads.bucketsRead());
    }

    private Path file(String relative) throws Exception {
        java.nio.file.Path f = dir.resolve(relative);
        Files.createDirectories(f.getParent());
        Files.writeString(f, "x");
        return new Path(f.toUri().toString());
    }

    private interface Io {
        void run() throws Exception;
    }

    private static void run(String threadName, Io body) throws Exception {
        Exception[] failed = new Exception[1];
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                failed[0] = e;
            }
        }, threadName);
        t.start();
        t.join();
        if (failed[0] != null) {
            throw failed[0];
        }
    }
}
