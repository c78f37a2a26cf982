package io.paimongov.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every runtime key with values a user can get wrong: garbage, signs, zero, overflow, empty, wrong
 * units, and spill roots that are files, missing, unwritable or climb with {@code ..}. Each is an
 * {@link IllegalArgumentException} whose message names the key and the value; the texts are pinned
 * because docs/reliability.md quotes them.
 */
@Tag("reliability")
class BadConfigurationTest {

    private static final String NOT_A_SIZE = "is not a size; use bytes or a unit such as 512k, 64m, 1g";
    private static final String THREADS =
            "must be 1 (one thread), a number above 1 (a shared pool), or -1 (one thread per active bucket)";

    private static final String RECLAIM_WAIT = "must be a duration such as '500ms', '30s' or '2m', at most '60s'";

    private static final String NOT_A_DURATION =
            "is not a duration; use a number and a unit such as 0s, 90s, 10m, 2h, 1d, or 'off'";

    @TempDir Path dir;

    @ParameterizedTest(name = "{0}=[{1}]")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "governance.memory.budget|garbage|" + "'governance.memory.budget' = 'garbage' " + NOT_A_SIZE,
                "governance.memory.budget|-64m|" + "'governance.memory.budget' = '-64m' " + NOT_A_SIZE,
                "governance.memory.budget|0|'governance.memory.budget' = '0' is below the minimum of 32k (8 pages of 4k)",
                "governance.memory.budget|99999999999t|'governance.memory.budget' = '99999999999t' is too large",
                "governance.memory.budget|9223372036854775808|'governance.memory.budget' = '9223372036854775808' is too large",
                "governance.memory.budget|\"\"|" + "'governance.memory.budget' = '' " + NOT_A_SIZE,
                "governance.memory.budget|64x|" + "'governance.memory.budget' = '64x' " + NOT_A_SIZE,
                "governance.memory.budget|64 pages|" + "'governance.memory.budget' = '64 pages' " + NOT_A_SIZE,
                "governance.memory.budget|1.5g|" + "'governance.memory.budget' = '1.5g' " + NOT_A_SIZE,
                "governance.memory.page-size|garbage|" + "'governance.memory.page-size' = 'garbage' " + NOT_A_SIZE,
                "governance.memory.page-size|0|'governance.memory.page-size' = '0' must be 'auto' or a power of two from 4k to 16m",
                "governance.memory.page-size|-4k|" + "'governance.memory.page-size' = '-4k' " + NOT_A_SIZE,
                "governance.memory.page-size|2k|'governance.memory.page-size' = '2k' must be 'auto' or a power of two from 4k to 16m",
                "governance.memory.page-size|48k|'governance.memory.page-size' = '48k' must be 'auto' or a power of two from 4k to 16m",
                "governance.memory.page-size|99999999999t|'governance.memory.page-size' = '99999999999t' is too large",
                "governance.memory.page-size|\"\"|" + "'governance.memory.page-size' = '' " + NOT_A_SIZE,
                "governance.spill.max-bytes|garbage|" + "'governance.spill.max-bytes' = 'garbage' " + NOT_A_SIZE,
                "governance.spill.max-bytes|0|'governance.spill.max-bytes' = '0' must be at least 1m, or 'unlimited'",
                "governance.spill.max-bytes|-1|" + "'governance.spill.max-bytes' = '-1' " + NOT_A_SIZE,
                "governance.spill.max-bytes|99999999999t|'governance.spill.max-bytes' = '99999999999t' is too large",
                "governance.spill.max-bytes|\"\"|" + "'governance.spill.max-bytes' = '' " + NOT_A_SIZE,
                "governance.spill.max-bytes|10 gallons|" + "'governance.spill.max-bytes' = '10 gallons' " + NOT_A_SIZE,
                "governance.spill.sweep-orphans|yes|'governance.spill.sweep-orphans' = 'yes' must be true or false",
                "governance.spill.sweep-orphans|\"\"|'governance.spill.sweep-orphans' = '' must be true or false",
                "governance.spill.sweep-orphans|1|'governance.spill.sweep-orphans' = '1' must be true or false",
                "governance.spill.dirs|\"\"|'governance.spill.dirs' = '' names no directory",
                "governance.spill.dirs|\" , ,\"|'governance.spill.dirs' = ', ,' names no directory",
                "governance.spill.dirs|/no/such/dir|'governance.spill.dirs' names '/no/such/dir', which is not an existing directory",
                "governance.compaction.task-threads|0|'governance.compaction.task-threads' = '0' " + THREADS,
                "governance.compaction.task-threads|-5|'governance.compaction.task-threads' = '-5' " + THREADS,
                "governance.compaction.task-threads|99999999999|'governance.compaction.task-threads' = '99999999999' " + THREADS,
                "governance.compaction.task-threads|\"\"|'governance.compaction.task-threads' = '' " + THREADS,
                "governance.compaction.task-threads|2.5|'governance.compaction.task-threads' = '2.5' " + THREADS,
                "governance.compaction.max-threads|0|'governance.compaction.max-threads' = '0' must be a whole number of at least 1",
                "governance.compaction.max-threads|-1|'governance.compaction.max-threads' = '-1' must be a whole number of at least 1",
                "governance.compaction.max-threads|99999999999|'governance.compaction.max-threads' = '99999999999' must be a whole number of at least 1",
                "governance.compaction.max-threads|\"\"|'governance.compaction.max-threads' = '' must be a whole number of at least 1",
                "governance.compaction.max-threads|eight|'governance.compaction.max-threads' = 'eight' must be a whole number of at least 1",
                "governance.memory.budget|12x|'governance.memory.budget' = '12x' " + NOT_A_SIZE,
                "governance.memory.budget|20k|'governance.memory.budget' = '20k' is below the minimum of 32k (8 pages of 4k)",
                "governance.memory.budget|99999999999999999999|'governance.memory.budget' = '99999999999999999999' is too large",
                "governance.memory.page-size|3000|'governance.memory.page-size' = '3000' must be 'auto' or a power of two from 4k to 16m",
                "governance.memory.page-size|32m|'governance.memory.page-size' = '32m' must be 'auto' or a power of two from 4k to 16m",
                "governance.memory.page-size|-1|'governance.memory.page-size' = '-1' " + NOT_A_SIZE,
                "governance.spill.max-bytes|512k|'governance.spill.max-bytes' = '512k' must be at least 1m, or 'unlimited'",
                "governance.spill.max-bytes|lots|'governance.spill.max-bytes' = 'lots' " + NOT_A_SIZE,
                "governance.spill.dirs|\" , \"|'governance.spill.dirs' = ',' names no directory",
                "governance.compaction.task-threads|-2|'governance.compaction.task-threads' = '-2' " + THREADS,
                "governance.compaction.task-threads|many|'governance.compaction.task-threads' = 'many' " + THREADS,
                // orphan files (issue 17)
                "governance.orphans.older-than|1 day|'governance.orphans.older-than' = '1 day' " + NOT_A_DURATION,
                "governance.orphans.older-than|10|'governance.orphans.older-than' = '10' " + NOT_A_DURATION,
                "governance.orphans.older-than|-1s|'governance.orphans.older-than' = '-1s' " + NOT_A_DURATION,
                "governance.orphans.older-than|1.5h|'governance.orphans.older-than' = '1.5h' " + NOT_A_DURATION,
                "governance.orphans.older-than|\"\"|'governance.orphans.older-than' = '' " + NOT_A_DURATION,
                "governance.orphans.older-than|99999999999d|'governance.orphans.older-than' = '99999999999d' is longer than 36500d",
                "governance.orphans.older-than|9999999999999s|'governance.orphans.older-than' = '9999999999999s' " + NOT_A_DURATION,
                // shared memory (issue 37)
                "governance.memory.sharing|fifo|'governance.memory.sharing' = 'fifo' must be 'fair' or 'none'",
                "governance.memory.sharing|\"\"|'governance.memory.sharing' = '' must be 'fair' or 'none'",
                "governance.memory.sharing|true|'governance.memory.sharing' = 'true' must be 'fair' or 'none'",
                "governance.memory.reclaim-wait|1|'governance.memory.reclaim-wait' = '1' " + RECLAIM_WAIT,
                "governance.memory.reclaim-wait|2m|'governance.memory.reclaim-wait' = '2m' " + RECLAIM_WAIT,
                "governance.memory.reclaim-wait|-1s|'governance.memory.reclaim-wait' = '-1s' " + RECLAIM_WAIT,
                "governance.memory.reclaim-wait|\"\"|'governance.memory.reclaim-wait' = '' " + RECLAIM_WAIT,
            })
    void everyKeyRejectsBadValuesNamingTheKeyAndTheValue(String key, String value, String message) {
        assertThatThrownBy(() -> GovernanceOptions.of(Map.of(key, value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void aNullValueAndAnUnknownRuntimeKeyAreRejected() {
        Map<String, String> withNull = new HashMap<>();
        withNull.put(GovernanceOptions.MEMORY_BUDGET, null);
        assertThatThrownBy(() -> GovernanceOptions.of(withNull)).hasMessage("'governance.memory.budget' has no value");
        assertThatThrownBy(() -> GovernanceOptions.of(Map.of("governance.spill.dir", "/tmp")))
                .hasMessageStartingWith("unknown option 'governance.spill.dir'; known keys: governance.provider,");
    }

    @Test
    void orphanMarginsParseToTheirDurationAndOffToNone() {
        assertThat(GovernanceOptions.defaults().orphansOlderThan()).contains(java.time.Duration.ofDays(1));
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.ORPHANS_OLDER_THAN, "OFF")).orphansOlderThan()).isEmpty();
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.ORPHANS_OLDER_THAN, "0s")).orphansOlderThan())
                .contains(java.time.Duration.ZERO);
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.ORPHANS_OLDER_THAN, "90s")).orphansOlderThan())
                .contains(java.time.Duration.ofSeconds(90));
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.ORPHANS_OLDER_THAN, "2H")).orphansOlderThan())
                .contains(java.time.Duration.ofHours(2));
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.ORPHANS_OLDER_THAN, "10m")).orphansOlderThan())
                .contains(java.time.Duration.ofMinutes(10));
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.ORPHANS_OLDER_THAN, "250ms")).orphansOlderThan())
                .contains(java.time.Duration.ofMillis(250));
    }

    @Test
    void aBlankProviderCountsAsNotSet() {
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.PROVIDER, "  ")).provider()).isEmpty();
    }

    @Test
    void aSpillRootThatIsAFileIsRejectedAsAFile() throws Exception {
        Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        assertThatThrownBy(() -> GovernanceOptions.of(Map.of(GovernanceOptions.SPILL_DIRS, file.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'governance.spill.dirs' names '" + file + "', which is a file, not a directory");
    }

    @Test
    void aSpillRootWithADotDotSegmentIsRejectedEvenWhenItExists() throws Exception {
        Files.createDirectories(dir.resolve("a/b"));
        String climbing = dir.resolve("a/b/..").toString();
        assertThatThrownBy(() -> GovernanceOptions.of(Map.of(GovernanceOptions.SPILL_DIRS, dir + "," + climbing)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'governance.spill.dirs' names '" + climbing + "', which has a '..' segment; name the directory itself");
        assertThatThrownBy(() -> GovernanceOptions.of(Map.of(GovernanceOptions.SPILL_DIRS, "../" + dir.getFileName())))
                .hasMessageContaining("which has a '..' segment");
    }

    @Test
    void anUnwritableSpillRootIsRejected() throws Exception {
        Path readOnly = Files.createDirectory(dir.resolve("read-only"));
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-x------"));
        try {
            Path unwritable = Files.isWritable(readOnly) ? refusedEvenToRoot() : readOnly;
            assertThatThrownBy(() -> GovernanceOptions.of(Map.of(GovernanceOptions.SPILL_DIRS, unwritable.toString())))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'governance.spill.dirs' names '" + unwritable + "', which this process cannot write to");
        } finally {
            Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("rwx------"));
        }
    }

    /**
     * A directory that even root cannot write to, for a user that bypasses file permissions (root,
     * as in CI): Linux's {@code /proc/sys} is mode 0555 and the kernel applies that mode to root
     * too, so creating a file there fails for every user. Skips only where neither applies.
     */
    private static Path refusedEvenToRoot() {
        Path sysctl = Path.of("/proc/sys");
        assumeThat(Files.isDirectory(sysctl) && !Files.isWritable(sysctl))
                .as("this user bypasses permissions and there is no /proc/sys to refuse it")
                .isTrue();
        return sysctl;
    }

    @Test
    void aSymbolicLinkRootIsReplacedByTheDirectoryItNames() throws Exception {
        Path real = Files.createDirectory(dir.resolve("real"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), real);
        GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.SPILL_DIRS, link.toString()));
        assertThat(options.spillDirs()).containsExactly(real.toRealPath());
    }

    @Test
    void aRelativeRootIsFixedAgainstTheWorkingDirectoryWhenValidated() throws Exception {
        Path cwd = Path.of("").toAbsolutePath();
        Path target = Files.createTempDirectory(cwd.resolve("target"), "relative-root");
        try {
            String relative = cwd.relativize(target).toString();
            GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.SPILL_DIRS, relative));
            assertThat(options.spillDirs()).containsExactly(target.toRealPath());
            assertThat(options.spillDirs().get(0).isAbsolute()).isTrue();
        } finally {
            Files.delete(target);
        }
    }

    @Test
    void theBudgetMinimumIsEightPagesOfTheGivenPageSize() {
        assertThat(GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "512k", GovernanceOptions.PAGE_SIZE, "64k")).budgetBytes())
                .isEqualTo(512 << 10);
        assertThatThrownBy(() -> GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "524287", GovernanceOptions.PAGE_SIZE, "64k")))
                .hasMessage("'governance.memory.budget' = '524287' is below the minimum of 512k (8 pages of 64k)");
        assertThatThrownBy(
                        () -> GovernanceOptions.of(
                                Map.of(GovernanceOptions.MEMORY_BUDGET, "16k", GovernanceOptions.PAGE_SIZE, "4k")))
                .hasMessage("'governance.memory.budget' = '16k' is below the minimum of 32k (8 pages of 4k)")
                .satisfies(e -> assertThat(GovernanceOptions.of(
                                Map.of(GovernanceOptions.MEMORY_BUDGET, "32k", GovernanceOptions.PAGE_SIZE, "4k"))
                        .budgetBytes()).isEqualTo(32 << 10));
    }
}
