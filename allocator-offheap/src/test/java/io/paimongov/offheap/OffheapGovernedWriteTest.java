package io.paimongov.offheap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A governed write on off-heap pages against the same write on heap pages, on real tables. */
class OffheapGovernedWriteTest {

    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"parquet", "avro"})
    void aSpillingWriteOnOffheapPagesGivesTheSameTableAsOnHeapPages(String format) throws Exception {
        Workload w = Workload.random(format.hashCode(), Writes.ROWS, Writes.ROWS / 4, 3, 48);

        Writes offheap = new Writes(dir.resolve("offheap"));
        FileStoreTable offheapTable = TestTables.primaryKeyTable(dir.resolve("offheap/wh"), "t", 4, format);
        offheap.writeAndCommit(offheapTable, offheap.options("offheap", "4m", "governance.memory.page-size", "16k"),
                EngineEnvironment.standalone(), w.rows());
        MetricsSnapshot offheapMetrics = offheap.context.snapshot();

        Writes heap = new Writes(dir.resolve("heap"));
        FileStoreTable heapTable = TestTables.primaryKeyTable(dir.resolve("heap/wh"), "t", 4, format);
        heap.writeAndCommit(heapTable, heap.options("heap", "4m", "governance.memory.page-size", "16k"),
                EngineEnvironment.standalone(), w.rows());

        assertThat(offheapMetrics.spillBytes()).as("the off-heap write spilled").isPositive();
        Map<List<Integer>, String> offheapContent = TestTables.read(offheapTable);
        assertThat(offheapContent).isEqualTo(TestTables.read(heapTable)).isEqualTo(w.expected());
        assertThat(offheapMetrics.peakReservedBytes()).isLessThanOrEqualTo(4 << 20);
        assertThat(offheapMetrics.reservedBytes()).isZero();
        assertThat(offheap.spillScopes()).isEmpty();
    }
}
