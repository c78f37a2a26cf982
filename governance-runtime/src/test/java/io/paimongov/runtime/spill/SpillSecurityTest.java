package io.paimongov.runtime.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.runtime.internal.spill.GovernedIOManager;
import io.paimongov.spi.EngineResources.SpillLocations;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.paimon.disk.BufferFileWriter;
import org.apache.paimon.disk.FileIOChannel;
import org.apache.paimon.memory.Buffer;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a spill scope promises about its files: the scope is 0700, the lease and every spill file
 * 0600 from the moment they exist, no channel path and no write name can put anything outside the
 * scope, and a root that cannot hold a scope fails naming the option. (POSIX file systems only:
 * the temp dir of the build is one.)
 */
@Tag("reliability")
class SpillSecurityTest {

    private static final int BLOCK = 4096;

    @TempDir Path root;

    private SpillLocations locations() {
        return SpillLocations.of(List.of(root), Long.MAX_VALUE);
    }

    private static String permissions(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    private static Buffer block() {
        return Buffer.create(MemorySegment.wrap(new byte[BLOCK]), BLOCK);
    }

    @Test
    void theScopeIsOwnerOnlyAndSoAreItsLeaseAndEverySpillFile() throws Exception {
        GovernedIOManager io = new GovernedIOManager(SpillScope.create(locations(), "w"), Long.MAX_VALUE, () -> {});
        try {
            assertThat(permissions(io.scope().dir())).isEqualTo("rwx------");
            assertThat(permissions(io.scope().dir().resolve(SpillScope.LEASE))).isEqualTo("rw-------");
            FileIOChannel.Enumerator runs = io.createChannelEnumerator();
            List<FileIOChannel.ID> ids = List.of(runs.next(), runs.next(), io.createChannel(), io.createChannel("merge"));
            for (FileIOChannel.ID id : ids) {
                BufferFileWriter writer = io.createBufferFileWriter(id);
                assertThat(permissions(id.getPathFile().toPath())).as("before the first block").isEqualTo("rw-------");
                writer.writeBlock(block());
                writer.close();
                assertThat(permissions(id.getPathFile().toPath())).as("after close").isEqualTo("rw-------");
            }
            assertThat(io.filesLeft()).isEqualTo(ids.size());
        } finally {
            io.close();
        }
        assertThat(io.scope().exists()).isFalse();
    }

    @Test
    void aChannelOpenedAgainIsMadeOwnerOnlyAgain() throws Exception {
        GovernedIOManager io = new GovernedIOManager(SpillScope.create(locations(), "w"), Long.MAX_VALUE, () -> {});
        try {
            FileIOChannel.ID id = io.createChannel();
            io.createBufferFileWriter(id).close();
            Files.setPosixFilePermissions(id.getPathFile().toPath(), PosixFilePermissions.fromString("rw-r--r--"));
            io.createBufferFileWriter(id).close();
            assertThat(permissions(id.getPathFile().toPath())).isEqualTo("rw-------");
        } finally {
            io.close();
        }
    }

    @Test
    void aChannelWhosePathClimbsOutOfTheScopeIsRefusedBeforeAnythingIsCreated() throws Exception {
        GovernedIOManager io = new GovernedIOManager(SpillScope.create(locations(), "w"), Long.MAX_VALUE, () -> {});
        try {
            File scope = io.scope().dir().toFile();
            FileIOChannel.ID climbing = new FileIOChannel.ID(scope, 0, "../../escaped", new Random(1));
            assertThat(climbing.getPath()).startsWith(scope.getAbsolutePath() + File.separator);
            assertThatThrownBy(() -> io.createBufferFileWriter(climbing))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("is outside the write's spill scope");
            FileIOChannel.ID elsewhere = new FileIOChannel.ID(root.toFile(), 0, new Random(2));
            assertThatThrownBy(() -> io.createBufferFileWriter(elsewhere)).hasMessageContaining("is outside");
            assertThat(io.spillFiles()).isZero();
            Path landing = climbing.getPathFile().toPath().normalize().getParent();
            try (Stream<Path> there = Files.list(landing)) {
                assertThat(there.filter(p -> p.getFileName().toString().startsWith("escaped"))).isEmpty();
            }
        } finally {
            io.close();
        }
        assertThat(Files.list(root)).isEmpty();
    }

    @Test
    void aWriteNameCannotPlaceTheScopeOrForgeTheLease() throws Exception {
        String hostile = "../../x\nprocessStart=2001-01-01T00:00:00Z\n/etc/passwd";
        SpillScope scope = SpillScope.create(locations(), hostile);
        try {
            assertThat(scope.dir().getParent()).isEqualTo(root.toRealPath());
            assertThat(scope.dir().getFileName().toString()).doesNotContain("..").doesNotContain("x");
            List<String> lease = Files.readAllLines(scope.dir().resolve(SpillScope.LEASE));
            assertThat(lease).hasSize(3);
            assertThat(lease.get(2)).isEqualTo("write=../../x?processStart=2001-01-01T00:00:00Z?/etc/passwd");
            assertThat(SpillScope.isDeadScope(scope.dir())).as("the forged start time is ignored").isFalse();
            assertThat(root.resolve("../../x")).doesNotExist();
        } finally {
            scope.delete();
        }
    }

    @Test
    void aRootThatCannotHoldAScopeFailsNamingTheOptionAndEveryRoot() throws Exception {
        Path file = Files.writeString(root.resolve("plain-file"), "x");
        Path proc = Path.of("/proc");
        SpillLocations nowhere = SpillLocations.of(List.of(file, proc), Long.MAX_VALUE);
        assertThatThrownBy(() -> SpillScope.create(nowhere, "w"))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("no spill root can hold a spill scope; check 'governance.spill.dirs' (or the engine's temp dirs): ")
                .hasMessageContaining(file.toString())
                .hasMessageContaining("/proc (");
        assertThat(Files.readString(file)).isEqualTo("x");
    }

    @Test
    void theSecondRootIsUsedWhenTheFirstRefuses() throws Exception {
        Path file = Files.writeString(root.resolve("plain-file"), "x");
        Path good = Files.createDirectory(root.resolve("good"));
        SpillScope scope = SpillScope.create(SpillLocations.of(List.of(file, good), Long.MAX_VALUE), "w");
        try {
            assertThat(scope.dir().getParent()).isEqualTo(good);
        } finally {
            scope.delete();
        }
    }
}
