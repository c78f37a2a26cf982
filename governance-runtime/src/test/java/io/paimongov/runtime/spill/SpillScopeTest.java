package io.paimongov.runtime.spill;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.spi.SpillLocations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
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
}
