package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.allocator.support.standalone.ManualCancellation;
import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.EngineReservation;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.WriteCancelledException;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A plain Java service handing the heap provider its own pool, cancel and metrics sink. */
class HeapEngineObjectsTest {

    @TempDir Path dir;

    private GovernanceOptions options(String budget) {
        return GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, budget, GovernanceOptions.SPILL_DIRS, dir.toString()));
    }

    @Test
    void writesSharingAPoolNeverPassIt() {
        HeapMemoryPool pool = new HeapMemoryPool(3 << 20);
        EngineEnvironment env = EngineEnvironment.builder().with(HeapMemoryPool.class, pool).build();
        HeapGovernanceProvider provider = new HeapGovernanceProvider();
        try (ResourceContext a = ResourceContext.open("a", provider, options("2m"), env);
                ResourceContext b = ResourceContext.open("b", provider, options("2m"), env)) {
            EngineReservation ra = a.newReservation("a");
            EngineReservation rb = b.newReservation("b");
            assertThat(ra.tryGrow(2 << 20)).isTrue();
            assertThat(rb.tryGrow(2 << 20)).as("the pool has 1m left").isFalse();
            assertThat(rb.tryGrow(1 << 20)).isTrue();
            assertThat(pool.usedBytes()).isEqualTo(3 << 20);
        }
        assertThat(pool.usedBytes()).isZero();
    }

    @Test
    void theEnginesOwnCancelStopsAWrite() throws Exception {
        ManualCancellation cancel = new ManualCancellation();
        EngineEnvironment env = EngineEnvironment.builder().with(CancellationSignal.class, cancel).build();
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        ResourceContext ctx = ResourceContext.open("w", new HeapGovernanceProvider(), options("4m"), env);
        Workload w = Workload.random(41, 5_000, 1_000, 1, 16);
        try (GovernedTableWrite write = GovernedTableWrite.batch(table, ctx)) {
            write.write(w.rows().get(0));
            cancel.cancel("engine: task killed");
            assertThatThrownBy(() -> write.write(w.rows().get(1)))
                    .isInstanceOf(WriteCancelledException.class)
                    .hasMessage("write cancelled: engine: task killed");
        }
        assertThat(ctx.snapshot().cancellations()).isEqualTo(1);
        assertThat(table.snapshotManager().latestSnapshot()).isNull();
    }

    @Test
    void theEnginesMetricSystemGetsTheFinalSnapshot() throws Exception {
        AtomicReference<MetricsSnapshot> last = new AtomicReference<>();
        AtomicReference<String> opened = new AtomicReference<>();
        MetricsReporter sink =
                new MetricsReporter() {
                    @Override
                    public void writeOpened(String writeName, java.util.function.Supplier<MetricsSnapshot> live) {
                        opened.set(writeName + ":" + live.get().budgetBytes());
                    }

                    @Override
                    public void writeClosed(String writeName, MetricsSnapshot snapshot) {
                        last.set(snapshot);
                    }
                };
        EngineEnvironment env = EngineEnvironment.builder().with(MetricsReporter.class, sink).build();
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 2, "parquet");
        Workload w = Workload.random(43, 3_000, 1_000, 1, 16);
        ResourceContext ctx = ResourceContext.open("reported", new HeapGovernanceProvider(), options("4m"), env);
        try (GovernedTableWrite write = GovernedTableWrite.batch(table, ctx)) {
            for (InternalRow row : w.rows()) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }
        assertThat(opened.get()).isEqualTo("reported:" + (4 << 20));
        assertThat(last.get()).isEqualTo(ctx.snapshot());
        assertThat(last.get().inputRows()).isEqualTo(w.rows().size());
    }

    @Test
    void anEngineAskingForMemoryBackMakesAnIdleWriteSpillAndTheTableIsStillRight() throws Exception {
        WriteHarness h = new WriteHarness(dir);
        FileStoreTable table = TestTables.primaryKeyTable(dir.resolve("wh"), "t", 4, "parquet");
        Workload w = Workload.random(47, 40_000, 10_000, 2, 32);
        try (GovernedTableWrite write = h.batch(table, h.options("8m", "governance.memory.page-size", "16k"))) {
            int half = w.rows().size() / 2;
            for (InternalRow row : w.rows().subList(0, half)) {
                write.write(row);
            }
            long before = h.context.engineUsedBytes();
            long spillsBefore = write.metrics().spillBytes();
            java.util.concurrent.atomic.AtomicLong given = new java.util.concurrent.atomic.AtomicLong();
            Thread engine = new Thread(() -> given.set(h.provider.relief().orElseThrow().relieve(4 << 20)));
            engine.start();
            engine.join();
            assertThat(given.get()).as("bytes given back").isPositive();
            assertThat(h.context.engineUsedBytes()).isEqualTo(before - given.get());
            assertThat(write.metrics().spillBytes()).as("the buffers spilled to give memory back").isGreaterThan(spillsBefore);
            for (InternalRow row : w.rows().subList(half, w.rows().size())) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }
        assertThat(TestTables.read(table)).isEqualTo(w.expected());
        assertThat(h.context.snapshot().reservedBytes()).isZero();
    }

    @Test
    void theStandaloneEngineReadsTheSharedPool() {
        StandaloneEngine engine = new HeapGovernanceProvider().standalone(2 << 20, dir).orElseThrow();
        try (ResourceContext ctx = ResourceContext.open("s", new HeapGovernanceProvider(), options("2m"), engine.environment())) {
            ctx.newReservation("x").grow(1 << 20);
            assertThat(engine.engineUsedBytes()).isEqualTo(1 << 20);
        }
        assertThat(engine.engineUsedBytes()).isZero();
        assertThat(engine.reportedMetrics()).isPresent();
    }
}
