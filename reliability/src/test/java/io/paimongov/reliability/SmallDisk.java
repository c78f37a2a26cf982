package io.paimongov.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A small file system of its own, for the chaos suite's full disk: a {@code tmpfs} of a given size
 * mounted on an empty directory, so that a write into it fails with the kernel's "No space left
 * on device" exactly as on a full disk. Mounting needs root (or CAP_SYS_ADMIN); {@link #mount}
 * tries once and says why not when the machine does not allow it, and the caller skips the
 * full-disk runs with that reason.
 *
 * <p>{@link #close()} unmounts (lazily if busy) and is idempotent. Not thread-safe.
 */
final class SmallDisk implements AutoCloseable {

    private final Path dir;
    private boolean mounted = true;

    private SmallDisk(Path dir) {
        this.dir = dir;
    }

    /** Mounts a tmpfs of {@code bytes} on {@code dir} (created if missing); empty with the reason it failed. */
    static Result mount(Path dir, long bytes) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        String out = exec("mount", "-t", "tmpfs", "-o", "size=" + bytes, "tmpfs", dir.toString());
        if (out != null) {
            return new Result(Optional.empty(), "cannot mount a tmpfs on " + dir + ": " + out);
        }
        return new Result(Optional.of(new SmallDisk(dir)), "");
    }

    /** A mounted disk, or why there is none. */
    record Result(Optional<SmallDisk> disk, String whyNot) {}

    Path dir() {
        return dir;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (!mounted) {
            return;
        }
        mounted = false;
        if (exec("umount", dir.toString()) != null) {
            exec("umount", "-l", dir.toString());
        }
    }

    /** Runs a command; null when it exited 0, else its output and exit code. */
    private static String exec(String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.toString();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "timed out";
        }
        return p.exitValue() == 0 ? null : out + " (exit " + p.exitValue() + ")";
    }
}
