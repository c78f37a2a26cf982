package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.EngineReservation;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.GovernanceClosedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeapResourceContextTest {

    @TempDir Path dir;

    @Test
    void opensTheProviderNamedInTheOptions() throws Exception {
        GovernanceOptions options =
                GovernanceOptions.of(Map.of(GovernanceOptions.PROVIDER, "heap", GovernanceOptions.SPILL_DIRS, dir.toString()));
        try (ResourceContext ctx = ResourceContext.open("w", options, EngineEnvironment.standalone())) {
            assertThat(ctx.snapshot().budgetBytes()).isEqualTo(64L << 20);
            // The scope is made when the write first needs its disk: opening only checked the root.
            assertThat(ctx.spillScopeDir().getParent()).isEqualTo(dir.toRealPath());
            assertThat(ctx.spillScopeDir()).doesNotExist();
            try (var files = Files.list(dir)) {
                assertThat(files).as("made at open").isEmpty();
            }
            EngineReservation r = ctx.newReservation("engine side buffer");
            r.grow(1 << 20);
            assertThat(ctx.engineUsedBytes()).isEqualTo(1 << 20);
        }
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void anUnknownProviderListsTheOnesFound() {
        GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.PROVIDER, "offheap"));
        assertThatThrownBy(() -> ResourceContext.open("w", options, EngineEnvironment.standalone()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown governance provider 'offheap' ('governance.provider'); found: heap");
    }

    @Test
    void aClosedContextCannotGovernAWrite() throws Exception {
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 1, "parquet");
        GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.SPILL_DIRS, dir.toString()));
        ResourceContext ctx = ResourceContext.open("w", new HeapGovernanceProvider(), options, EngineEnvironment.standalone());
        ctx.close();
        ctx.close();
        assertThatThrownBy(() -> GovernedTableWrite.batch(table, ctx))
                .isInstanceOf(GovernanceClosedException.class)
                .hasMessage("resource context 'w' is closed");
    }

    @Test
    void openingSweepsScopesOfDeadProcesses() throws Exception {
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        Path crashed = Files.createDirectories(dir.resolve("paimon-gov-" + finished.pid() + "-x/paimon-io-y"));
        Files.writeString(crashed.resolve("a.channel"), "spilled before a crash");
        GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.SPILL_DIRS, dir.toString()));
        try (ResourceContext ctx = ResourceContext.open("w", new HeapGovernanceProvider(), options, EngineEnvironment.standalone())) {
            assertThat(ctx.sweptScopes()).isEqualTo(1);
            assertThat(crashed.getParent()).doesNotExist();
        }
    }
}
