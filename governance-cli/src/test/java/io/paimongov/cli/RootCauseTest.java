package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RootCause} on the JDK's own errors, wrapped the way Paimon and the runtime wrap them: the
 * diagnosis names the root cause and its numbers, not the wrapper, and decides exit code 4.
 */
class RootCauseTest {

    private static final RootCause.Memory SIXTY_FOUR_MIB = new RootCause.Memory(64L << 20, 256L << 20);

    @TempDir Path tmp;

    /** {@code /dev/full} fails every write with ENOSPC, as a full disk does: the JDK's exception, without a path. */
    @Test
    void noSpaceWithoutAPathNamesTheDirectoriesWrittenToWithTheirFreeBytes() {
        assumeTrue(Files.isWritable(Path.of("/dev/full")), "needs /dev/full");
        IOException enospc = (IOException) catchThrowable(() -> {
            try (FileOutputStream out = new FileOutputStream("/dev/full")) {
                out.write(new byte[4096]);
            }
        });
        RuntimeException wrapped = new RuntimeException("preparing snapshot", new UncheckedIOException(enospc));

        RootCause.Diagnosis why = RootCause.of(wrapped, SIXTY_FOUR_MIB, List.of(tmp));

        assertThat(why.kind()).isEqualTo(RootCause.Kind.ENVIRONMENT);
        assertThat(why.kind().exitCode).isEqualTo(4);
        assertThat(why.message())
                .startsWith("no space left on device while writing under " + tmp + " (")
                .containsPattern("\\(\\d+ bytes free on its file system\\)")
                .endsWith("(reported as: RuntimeException: preparing snapshot)");
    }

    @Test
    void noSpaceWithAPathNamesThatPath() {
        // What the JDK throws when creating a file on a full file system (UnixException's translation).
        Path file = tmp.resolve("bucket-0").resolve("data-1.parquet");
        FileSystemException enospc = new FileSystemException(file.toString(), null, "No space left on device");
        IllegalStateException wrapped = new IllegalStateException("write failed", enospc);

        RootCause.Diagnosis why = RootCause.of(wrapped, SIXTY_FOUR_MIB, List.of(Path.of("/elsewhere")));

        assertThat(why.kind()).isEqualTo(RootCause.Kind.ENVIRONMENT);
        assertThat(why.message()).startsWith("no space left on device: cannot write " + file + " (")
                .containsPattern("\\(\\d+ bytes free on its file system\\)")
                .doesNotContain("/elsewhere");
    }

    /**
     * The free bytes a governed write read when it failed, as an engine carries them: only as text
     * (Flink's SerializedThrowable, a Spark task failure). Those are named, not the disk's bytes
     * of now, which the write's cleanup freed.
     */
    @Test
    void noSpaceNamesTheFreeBytesReadWhenTheWriteFailedAlsoFromAnEnginesText() {
        Path spill = tmp.resolve("scope").resolve("spill-1.channel");
        RuntimeException job = new RuntimeException("Job failed: java.io.IOException: No space left on device;"
                + " Suppressed: io.paimongov.runtime.spill.FreeSpaceAtFailure: 1234 bytes free on the file system of "
                + spill + " when the write failed");

        RootCause.Diagnosis why = RootCause.of(job, SIXTY_FOUR_MIB, List.of(tmp));

        assertThat(why.kind()).isEqualTo(RootCause.Kind.ENVIRONMENT);
        assertThat(why.message()).startsWith("no space left on device while writing under " + tmp
                + " (1234 bytes free on its file system when the write failed, ");
    }

    /** sysfs refuses new directories to everyone: EPERM as root, EACCES otherwise. */
    @Test
    void permissionDeniedNamesThePath() {
        Path forbidden = Path.of("/sys/paimon-governance-root-cause-test");
        Throwable denied = catchThrowable(() -> Files.createDirectory(forbidden));
        assumeTrue(denied instanceof FileSystemException, "needs a /sys that refuses new directories");

        RootCause.Diagnosis why = RootCause.of(new RuntimeException("Create database location failed",
                new UncheckedIOException((IOException) denied)), SIXTY_FOUR_MIB, List.of());

        assertThat(why.kind()).isEqualTo(RootCause.Kind.ENVIRONMENT);
        assertThat(why.message()).startsWith("permission denied: cannot write " + forbidden);
    }

    @Test
    void readOnlyFileSystemNamesThePath() {
        Path file = Path.of("/mnt/ro/wh");
        FileSystemException erofs = new FileSystemException(file.toString(), null, "Read-only file system");

        RootCause.Diagnosis why = RootCause.of(new RuntimeException("outer", erofs), SIXTY_FOUR_MIB, List.of());

        assertThat(why.message()).startsWith("read-only file system: cannot write /mnt/ro/wh");
        assertThat(why.kind()).isEqualTo(RootCause.Kind.ENVIRONMENT);
    }

    /** An OutOfMemoryError suppressed under the failure of a cleanup is still the root cause. */
    @Test
    void suppressedOutOfMemoryNamesTheBudgetAndTheHeap() {
        IllegalStateException close = new IllegalStateException("close failed");
        close.addSuppressed(new OutOfMemoryError("Java heap space"));

        RootCause.Diagnosis why = RootCause.of(close, SIXTY_FOUR_MIB, List.of());

        assertThat(why.kind()).isEqualTo(RootCause.Kind.ENVIRONMENT);
        assertThat(why.message())
                .startsWith("out of memory (Java heap space) with a budget of " + (64L << 20) + " bytes")
                .contains("maximum heap is " + (256L << 20) + " bytes")
                .contains("-Xmx")
                .endsWith("(reported as: IllegalStateException: close failed)");
    }

    @Test
    void aCycleOfCausesEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);

        RootCause.Diagnosis why = RootCause.of(a, SIXTY_FOUR_MIB, List.of());

        assertThat(why).isEqualTo(new RootCause.Diagnosis(RootCause.Kind.INTERNAL, "RuntimeException: a"));
    }

    @Test
    void anInternalErrorNamesItsInnermostCauseNotOnlyTheWrapper() {
        IllegalStateException root = new IllegalStateException("manifest list is corrupt");
        RuntimeException wrapper = new RuntimeException("preparing snapshot", new java.io.UncheckedIOException(
                new IOException("read failed", root)));

        RootCause.Diagnosis why = RootCause.of(wrapper, SIXTY_FOUR_MIB, List.of());

        assertThat(why).isEqualTo(new RootCause.Diagnosis(RootCause.Kind.INTERNAL,
                "RuntimeException: preparing snapshot (caused by IllegalStateException: manifest list is corrupt)"));
    }

    @Test
    void aRefusedSettingIsUsageAndAnythingElseInternal() {
        assertThat(RootCause.of(new IllegalArgumentException("'governance.memory.budget' = 1"), SIXTY_FOUR_MIB, List.of()))
                .isEqualTo(new RootCause.Diagnosis(RootCause.Kind.USAGE,
                        "IllegalArgumentException: 'governance.memory.budget' = 1"));
        assertThat(RootCause.of(new IOException("Create database location failed"), SIXTY_FOUR_MIB, List.of()).kind())
                .isEqualTo(RootCause.Kind.INTERNAL);
    }
}
