package io.paimongov.reliability;

import java.io.IOException;
import java.nio.file.Files;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;

/**
 * Paimon's {@link LocalFileIO} that holds the first atomic write of a snapshot file at a gate: it
 * creates {@code <gate>.ready} and waits for {@code <gate>.go} before writing. A test starts two
 * committers in two JVMs, waits until both stand at the gate (their manifests written, each about
 * to take the same snapshot id), and lets them through one after the other: the second finds the id
 * taken, as when two committers race, every time. Later snapshot writes pass.
 *
 * <p>Thread-safety: one committer per instance.
 */
final class GatedFileIO extends LocalFileIO {

    private static final long serialVersionUID = 1L;
    private static final long WAIT_SECONDS = 180;

    private final String gate;
    private transient boolean passed;

    GatedFileIO(java.nio.file.Path gate) {
        this.gate = gate.toString();
    }

    @Override
    public boolean tryToWriteAtomic(Path path, String content) throws IOException {
        if (!passed && path.getName().startsWith("snapshot-")) {
            passed = true;
            ChildJvm.touch(java.nio.file.Path.of(gate + ".ready"));
            java.nio.file.Path go = java.nio.file.Path.of(gate + ".go");
            long deadline = System.nanoTime() + WAIT_SECONDS * 1_000_000_000L;
            while (!Files.exists(go)) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("no " + go + " within " + WAIT_SECONDS + " s");
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted at the gate", e);
                }
            }
        }
        return super.tryToWriteAtomic(path, content);
    }
}
