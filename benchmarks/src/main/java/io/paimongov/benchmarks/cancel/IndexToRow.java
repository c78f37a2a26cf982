package io.paimongov.benchmarks.cancel;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;

/** Row {@code i} of {@link CancelRows} as a Flink row; keys spread over as many keys as the job has rows. */
final class IndexToRow implements MapFunction<Long, RowData> {

    private static final long serialVersionUID = 1L;

    private final int keys;

    IndexToRow(long rows) {
        this.keys = (int) Math.min(Integer.MAX_VALUE, rows);
    }

    @Override
    public RowData map(Long i) {
        return GenericRowData.of(CancelRows.key(i, keys), StringData.fromBytes(CancelRows.value(i)));
    }
}
