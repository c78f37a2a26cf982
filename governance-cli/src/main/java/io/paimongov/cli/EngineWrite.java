package io.paimongov.cli;

import io.paimongov.runtime.spill.SpillScope;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What the demo's write through an engine did ({@code --provider flink} or {@code spark}): the
 * rows its governed writers took, whether the statement committed or was cancelled, what the
 * writers reported through the engine, and what the engine and the spill roots held after.
 *
 * @param rowsWritten rows the governed writers took
 * @param committed whether the statement's commit was published
 * @param cancelled whether the job was cancelled ({@code --cancel-after-rows})
 * @param writes what the governed writes reported through the engine's metrics
 * @param engineUsedAfterClose bytes the engine's allocators still held after the job
 * @param spillFilesLeft files left under the writes' spill scopes in the engine's temp dirs
 * @param spillRoot the engine's temp dir the scopes were made in
 */
record EngineWrite(long rowsWritten, boolean committed, boolean cancelled, WriteSummary writes, long engineUsedAfterClose,
        long spillFilesLeft, Path spillRoot) {

    /**
     * Files in governed spill scopes ({@code paimon-gov-*} directories) anywhere under {@code root};
     * -1 when the tree cannot be read. A file or directory that vanishes during the walk is not
     * left: the engine may still be removing its own directories under {@code root} as its cluster
     * stops after the job.
     */
    static long scopeFilesUnder(Path root) {
        if (!Files.exists(root)) {
            return 0;
        }
        long[] files = {0};
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    if (attributes.isRegularFile() && root.relativize(file).toString().contains(SpillScope.PREFIX)) {
                        files[0]++;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }
            });
        } catch (IOException e) {
            return -1;
        }
        return files[0];
    }
}
