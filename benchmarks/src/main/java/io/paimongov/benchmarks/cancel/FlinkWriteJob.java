package io.paimongov.benchmarks.cancel;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.data.RowData;
import org.apache.paimon.table.FileStoreTable;

/**
 * One side of {@link JobCancel}: how a Flink job writes the harness's rows into the table. The
 * harness builds the source ({@link CancelRows}, counted by {@link SlotProbe}), hands the stream to
 * {@link #write}, submits the job to its MiniCluster and times the cancel; the job only adds its
 * sink. A DataStream sink adds its operators; a SQL job would register {@code rows} as a view in a
 * {@code StreamTableEnvironment} over {@code rows.getExecutionEnvironment()} and attach its {@code
 * INSERT} with {@code StatementSet.attachAsDataStream()}, so the same harness times it.
 *
 * <p>Called on the harness's thread while it builds each job; implementations are stateless.
 */
public interface FlinkWriteJob {

    /** The side's name in progress lines: {@code paimon}, {@code governed}. */
    String name();

    /**
     * Adds the sink that writes {@code rows} into {@code table} to {@code rows}' job.
     *
     * @param rows {@code (k INT NOT NULL, v STRING)} rows with parallelism 2, in Flink's internal
     *     row format ({@code InternalTypeInfo} of {@link JobCancel#ROW_TYPE})
     */
    void write(DataStream<RowData> rows, FileStoreTable table);
}
