package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.CleanupException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A governed write on a real table whose spill scope cannot be deleted at close (its lease file made
 * immutable with {@code chattr +i}, which stops root too): the commit stands, the close throws
 * {@link CleanupException} naming the scope, {@code cleanupFailures} counts it, and every other step
 * of the release ran (the engine's memory is back, no reservation is left).
 */
class HeapCleanupFailureTest {

    @TempDir Path dir;

    @Test
    void aSpillScopeThatCannotBeDeletedFailsTheCloseAfterEveryOtherStepRan() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        Workload w = Workload.random(41, WriteHarness.ROWS, WriteHarness.ROWS / 2, 2, 64);
        GovernedTableWrite write = h.batch(table, h.options("4m", "governance.memory.page-size", "16k"));
        for (InternalRow row : w.rows()) {
            write.write(row);
        }
        write.prepareCommit().commit();
        Path scope = h.context.spillScopeDir();
        Path lease = scope.resolve(SpillScope.LEASE);
        assertThat(lease).as("the write spilled, which made its scope").exists();
        assumeTrue(chattr("+i", lease) == 0, "chattr +i is not available here: no way to make a file undeletable");
        try {
            assertThatThrownBy(write::close)
                    .isInstanceOfSatisfying(CleanupException.class, e -> assertThat(e.failedSteps()).singleElement()
                            .asString()
                            .startsWith("close the resource context: delete the spill scope: ")
                            .contains("cannot delete spill scope " + scope));
            assertThat(Files.exists(lease)).isTrue();
            assertThat(write.metrics().cleanupFailures()).isEqualTo(1);
            assertThat(write.metrics().reservedBytes()).isZero();
            assertThat(h.context.holders()).isEmpty();
            assertThat(h.provider.lastOpened().usedAtClose()).as("engine memory held at close").isZero();
            assertThat(TestTables.read(table)).isEqualTo(w.expected());
        } finally {
            chattr("-i", lease);
        }
    }

    /**
     * A cancel that finds the write idle releases it on the cancelling thread, which has no error to
     * carry the failure: the next close throws it, once.
     */
    @Test
    void aCleanupThatFailsDuringACancelIsThrownByTheNextClose() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        Workload w = Workload.random(43, WriteHarness.ROWS, WriteHarness.ROWS / 2, 2, 64);
        GovernedTableWrite write = h.batch(table, h.options("2m", "governance.memory.page-size", "16k"));
        for (InternalRow row : w.rows()) {
            write.write(row);
        }
        Path lease = h.context.spillScopeDir().resolve(SpillScope.LEASE);
        assertThat(lease).as("the write spilled, which made its scope").exists();
        assumeTrue(chattr("+i", lease) == 0, "chattr +i is not available here: no way to make a file undeletable");
        try {
            assertThat(write.cancel("operator asked")).isTrue();
            assertThat(write.metrics().cleanupFailures()).isEqualTo(1);
            assertThat(h.provider.lastOpened().usedAtClose()).as("engine memory held at close").isZero();
            assertThatThrownBy(write::close)
                    .isInstanceOf(CleanupException.class)
                    .hasMessageContaining("delete the spill scope: ");
            write.close();
            assertThat(table.snapshotManager().latestSnapshot()).isNull();
        } finally {
            chattr("-i", lease);
        }
    }

    private static int chattr(String flag, Path file) throws InterruptedException {
        try {
            return new ProcessBuilder("chattr", flag, file.toString()).redirectErrorStream(true).start().waitFor();
        } catch (IOException e) {
            return -1;
        }
    }
}
