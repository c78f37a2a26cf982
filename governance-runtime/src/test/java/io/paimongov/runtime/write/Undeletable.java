package io.paimongov.runtime.write;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file nobody can delete, root included: Linux's immutable attribute ({@code chattr +i}). Tests
 * that need one are skipped, saying why, where the attribute cannot be set (no {@code chattr}, a
 * file system without it, no CAP_LINUX_IMMUTABLE).
 */
final class Undeletable implements AutoCloseable {

    private final Path file;

    private Undeletable(Path file) {
        this.file = file;
    }

    /** Makes {@code file} (which exists) immutable, or skips the test. */
    static Undeletable make(Path file) throws IOException, InterruptedException {
        int rc = chattr("+i", file);
        assumeTrue(rc == 0, "chattr +i is not available here (exit " + rc + "): no way to make a file undeletable");
        try {
            Files.delete(file);
        } catch (IOException expected) {
            return new Undeletable(file);
        }
        throw new IllegalStateException("chattr +i did not stop the deletion of " + file);
    }

    private static int chattr(String flag, Path file) throws InterruptedException {
        try {
            return new ProcessBuilder("chattr", flag, file.toString()).redirectErrorStream(true).start().waitFor();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Lets the file be deleted again. */
    @Override
    public void close() throws InterruptedException {
        if (chattr("-i", file) != 0) {
            throw new IllegalStateException("cannot clear the immutable attribute of " + file + "; run chattr -i on it");
        }
    }
}
