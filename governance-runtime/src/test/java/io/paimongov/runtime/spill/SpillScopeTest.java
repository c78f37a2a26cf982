package io.paimongov.runtime.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.EngineResources.SpillLocations;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillScopeTest {

    @TempDir Path root;

    private SpillLocations locations() {
        return SpillLocations.of(List.of(root), Long.MAX_VALUE);
    }

    @Test
    void scopeIsPrivateLeasedAndDeletedWithItsFiles() throws Exception {
        SpillScope scope = SpillScope.create(locations(), "w1");
        assertThat(scope.dir().getParent()).isEqualTo(root.toAbsolutePath().normalize());
        assertThat(scope.dir().getFileName().toString())
                .startsWith(SpillScope.PREFIX + ProcessHandle.current().pid() + "-");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(scope.dir()))).isEqualTo("rwx------");
        assertThat(Files.readString(scope.dir().resolve(SpillScope.LEASE)))
                .contains("pid=" + ProcessHandle.current().pid())
                .contains("write=w1");
        Files.createDirectories(scope.dir().resolve("paimon-io-x"));
        Files.writeString(scope.dir().resolve("paimon-io-x/a.channel"), "data");
        scope.delete();
        scope.delete();
        assertThat(scope.exists()).isFalse();
    }

    @Test
    void sweepRemovesScopesOfDeadProcessesOnly() throws Exception {
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        Path dead = root.resolve(SpillScope.PREFIX + finished.pid() + "-crashed");
        Files.createDirectories(dead.resolve("paimon-io-1"));
        Files.writeString(dead.resolve("paimon-io-1/run.channel"), "left behind");
        SpillScope live = SpillScope.create(locations(), "alive");
        Path unrelated = Files.createDirectory(root.resolve("someone-elses"));

        assertThat(SpillScope.sweepDead(locations())).isEqualTo(1);
        assertThat(dead).doesNotExist();
        assertThat(live.dir()).exists();
        assertThat(unrelated).exists();
    }

    @Test
    void aReusedPidWithAnotherStartTimeCountsAsDead() throws Exception {
        long self = ProcessHandle.current().pid();
        Path stale = root.resolve(SpillScope.PREFIX + self + "-old");
        Files.createDirectory(stale);
        Files.writeString(stale.resolve(SpillScope.LEASE), "pid=" + self + "\nprocessStart=2001-01-01T00:00:00Z\n");
        assertThat(SpillScope.isDeadScope(stale)).isTrue();
    }

    @Test
    void openingMakesNothingAndTheFirstNeedMakesTheScopeOnce() throws Exception {
        SpillScope scope = SpillScope.open(locations(), "lazy");
        assertThat(entries(root)).as("made at open").isEmpty();
        assertThat(scope.isMade()).isFalse();
        Path planned = scope.dir();
        assertThat(planned.getParent()).isEqualTo(root.toAbsolutePath().normalize());

        assertThat(scope.make()).isEqualTo(planned);
        assertThat(scope.make()).as("made once").isEqualTo(planned);
        assertThat(entries(root)).containsExactly(planned);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(planned))).isEqualTo("rwx------");
        assertThat(Files.readString(planned.resolve(SpillScope.LEASE))).contains("write=lazy");

        scope.delete();
        assertThat(entries(root)).isEmpty();
        assertThatThrownBy(scope::make)
                .as("nothing is made once the scope was deleted")
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("was deleted: its write is closed");
        assertThat(entries(root)).isEmpty();
    }

    @Test
    void aScopeNeverMadeIsDeletedWithoutTouchingTheDiskAndIsNeverMadeAfter() throws Exception {
        SpillScope scope = SpillScope.open(locations(), "idle");
        scope.delete();
        scope.delete();
        assertThatThrownBy(scope::make).isInstanceOf(UncheckedIOException.class);
        assertThat(entries(root)).isEmpty();
    }

    @Test
    void aRootThatRefusesAtTheFirstNeedIsSkippedForTheNext() throws Exception {
        Path first = Files.createDirectory(root.resolve("first"));
        Path second = Files.createDirectory(root.resolve("second"));
        SpillScope scope = SpillScope.open(SpillLocations.of(List.of(first, second), Long.MAX_VALUE), "w");
        assertThat(scope.dir().getParent()).isEqualTo(first);
        Files.delete(first);
        try {
            assertThat(scope.make().getParent()).isEqualTo(second);
            assertThat(scope.dir().getParent()).isEqualTo(second);
            assertThat(Files.exists(scope.dir().resolve(SpillScope.LEASE))).isTrue();
        } finally {
            scope.delete();
        }
        assertThat(entries(second)).isEmpty();
    }

    @Test
    void whenNoRootTakesTheScopeAtTheFirstNeedTheErrorNamesTheOptionAndEveryRoot() throws Exception {
        Path file = Files.writeString(root.resolve("plain-file"), "x");
        Path gone = Files.createDirectory(root.resolve("gone"));
        SpillScope scope = SpillScope.open(SpillLocations.of(List.of(file, gone), Long.MAX_VALUE), "w");
        Files.delete(gone);
        assertThatThrownBy(scope::make)
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("no spill root can hold a spill scope; check 'governance.spill.dirs' (or the engine's temp dirs): ")
                .hasMessageContaining(file + " (java.nio.file.NotDirectoryException")
                .hasMessageContaining(gone + " (");
        assertThat(entries(root)).containsExactly(file);
    }

    /**
     * A scope made when a write first spilled, by a process that then died without deleting it, is
     * swept by the next process on the same roots: the lease made with the scope names its owner.
     */
    @Test
    void aScopeMadeLateByAProcessThatDiedIsSwept() throws Exception {
        Process child = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", System.getProperty("java.class.path"),
                        ScopeLeftBehind.class.getName(), root.toString())
                .redirectErrorStream(true)
                .start();
        String made = new String(child.getInputStream().readAllBytes()).trim();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        Path left = Path.of(made.substring(made.lastIndexOf('\n') + 1));
        assertThat(left.getParent()).isEqualTo(root.toAbsolutePath().normalize());
        assertThat(left.resolve(SpillScope.LEASE)).exists();

        assertThat(SpillScope.sweepDead(locations())).isEqualTo(1);
        assertThat(entries(root)).isEmpty();
    }

    private static List<Path> entries(Path dir) throws Exception {
        try (Stream<Path> children = Files.list(dir)) {
            return children.toList();
        }
    }
}
