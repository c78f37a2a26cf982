package io.paimongov.benchmarks.cancel;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.paimon.flink.sink.FlinkSinkBuilder;
import org.apache.paimon.table.FileStoreTable;

/**
 * Paimon's own Flink sink ({@code paimon-flink-2.0}): {@code new
 * FlinkSinkBuilder(table).forRowData(rows).build()}, with what the table's options say (its writer
 * takes managed memory when the table has {@code sink.use-managed-memory-allocator=true}, as
 * {@link JobCancel}'s tables do).
 */
public final class PaimonSinkJob implements FlinkWriteJob {

    @Override
    public String name() {
        return "paimon";
    }

    @Override
    public void write(DataStream<RowData> rows, FileStoreTable table) {
        new FlinkSinkBuilder(table).forRowData(rows).build();
    }
}
