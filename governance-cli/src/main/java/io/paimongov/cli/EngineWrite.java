package io.paimongov.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import io.paimongov.runtime.spill.SpillScope;

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

    /** Files in governed spill scopes ({@code paimon-gov-*} directories) anywhere under {@code root}. */
    static long scopeFilesUnder(Path root) {
        if (!Files.exists(root)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> root.relativize(p).toString().contains(SpillScope.PREFIX))
                    .count();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }
}
