package io.paimongov.cli;

import java.io.Serializable;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * How to make the demo's input again inside an engine's task: the generator's settings and the
 * table it continues into, so that a source task and the command's own model produce the same rows
 * in the same order ({@link DemoWorkload} is a pure function of its settings, the seed and the
 * table's rows when it starts).
 *
 * <p>Immutable; serializable (shipped to Flink and Spark tasks).
 *
 * @param warehouse the warehouse directory's absolute path (a {@link java.nio.file.Path} is not serializable)
 * @param deletes whether rows may delete keys (false: upserts only, for engines whose SQL writes
 *     carry no row kind)
 */
record DemoRecipe(String warehouse, long seed, int partitions, int keys, int rows, int valueBytes, boolean appendOnly,
        boolean deletes) implements Serializable {

    static DemoRecipe of(DemoSettings s, java.nio.file.Path warehouse, boolean deletes) {
        return new DemoRecipe(warehouse.toAbsolutePath().toString(), s.seed(), s.partitions(), s.keys(), s.rows(), s.valueBytes(), s.appendOnly(),
                deletes);
    }

    /** A workload started from {@code table}'s rows, as the command makes its own. */
    DemoWorkload workload(FileStoreTable table) throws java.io.IOException {
        DemoWorkload workload = appendOnly
                ? DemoWorkload.appendOnly(seed, partitions, rows, valueBytes)
                : new DemoWorkload(seed, partitions, keys, valueBytes);
        if (!deletes) {
            workload.withoutDeletes();
        }
        workload.startFrom(DemoBaseline.read(table, !appendOnly));
        return workload;
    }

    /** The workload made again in a task, from the table as it is now (nothing committed yet). */
    DemoWorkload workloadInTask() throws Exception {
        return workload(DemoTable.open(java.nio.file.Path.of(warehouse)));
    }

    /** Row {@code row} as Flink and Spark take it: {@code (p, k, v)}, v null for a delete. */
    static Object[] values(InternalRow row) {
        return new Object[] {row.getInt(0), row.getInt(1), row.isNullAt(2) ? null : row.getString(2).toString()};
    }
}
