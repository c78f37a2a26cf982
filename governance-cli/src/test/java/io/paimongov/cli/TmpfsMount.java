package io.paimongov.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted on a test's directory, for a real full or read-only file system: the
 * kernel's own ENOSPC and EROFS, not a simulation. Needs {@code mount} to be permitted (root
 * outside a restricted container); {@link #mount} says whether it was, so a test can skip with the
 * reason where it is not. {@link #close} unmounts.
 */
final class TmpfsMount implements AutoCloseable {

    private final Path dir;

    private TmpfsMount(Path dir) {
        this.dir = dir;
    }

    /** Mounts a tmpfs with {@code options} (e.g. {@code size=1m}, {@code ro,size=1m}) on {@code dir}; null when not permitted. */
    static TmpfsMount mount(Path dir, String options) throws InterruptedException {
        return run("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString()) ? new TmpfsMount(dir) : null;
    }

    Path dir() {
        return dir;
    }

    @Override
    public void close() {
        boolean unmounted;
        try {
            unmounted = run("umount", dir.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            unmounted = false;
        }
        if (!unmounted) {
            throw new IllegalStateException("cannot unmount the tmpfs on " + dir);
        }
    }

    private static boolean run(String... command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException noMountCommand) {
            return false;
        }
    }
}
