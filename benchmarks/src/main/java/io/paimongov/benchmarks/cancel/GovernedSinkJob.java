package io.paimongov.benchmarks.cancel;

import io.paimongov.connector.flink.sink.GovernedPaimonSink;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * The governed DataStream sink: {@code GovernedPaimonSink.write(rows, converter, table, Map.of())},
 * each writer's budget its slot's share of managed memory.
 */
public final class GovernedSinkJob implements FlinkWriteJob {

    @Override
    public String name() {
        return "governed";
    }

    @Override
    public void write(DataStream<RowData> rows, FileStoreTable table) {
        GovernedPaimonSink.write(rows, GovernedSinkJob::toPaimon, table, Map.of());
    }

    /** Flink's {@code (k, v)} row as Paimon's. */
    static InternalRow toPaimon(RowData row) {
        return GenericRow.of(row.getInt(0), BinaryString.fromBytes(row.getString(1).toBytes()));
    }
}
