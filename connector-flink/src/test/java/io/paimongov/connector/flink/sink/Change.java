package io.paimongov.connector.flink.sink;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;

/** A test job's element: an upsert or a delete of (p, k). A Flink POJO, so Flink serializes it. */
public class Change {
    public int p;
    public int k;
    public String v;
    public boolean delete;

    public Change() {}

    Change(int p, int k, String v, boolean delete) {
        this.p = p;
        this.k = k;
        this.v = v;
        this.delete = delete;
    }

    /** The change a workload row stands for: a delete of its key, or an upsert of its value. */
    static Change of(InternalRow row) {
        return row.getRowKind() == RowKind.DELETE
                ? new Change(row.getInt(0), row.getInt(1), null, true)
                : new Change(row.getInt(0), row.getInt(1), row.getString(2).toString(), false);
    }

    /** What the sink is given to turn a change into a Paimon row. */
    static InternalRow toRow(Change c) {
        return c.delete ? GenericRow.ofKind(RowKind.DELETE, c.p, c.k, null) : GenericRow.of(c.p, c.k, BinaryString.fromString(c.v));
    }
}
