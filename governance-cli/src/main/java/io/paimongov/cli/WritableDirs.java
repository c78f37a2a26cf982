package io.paimongov.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Proves, before a run writes anything, that it can create files in the directories it will write
 * to, so that a read-only or forbidden directory fails with the file system's own error (its
 * {@code FileSystemException} names the path and the reason: "Read-only file system", "Permission
 * denied", "Operation not permitted") rather than with whatever wraps it later (Paimon's catalog
 * reports only "Create database location failed"). {@link RootCause} then names it.
 *
 * <p>Stateless and thread-safe.
 */
final class WritableDirs {

    private WritableDirs() {}

    /**
     * Creates each of {@code dirs} if missing, then creates and deletes one empty file in it.
     *
     * @throws IOException the file system's own error for the first directory that fails
     */
    static void require(List<Path> dirs) throws IOException {
        for (Path dir : dirs) {
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".paimon-governance-probe-", "");
            Files.delete(probe);
        }
    }
}
