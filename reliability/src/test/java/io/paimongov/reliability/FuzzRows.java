package io.paimongov.reliability;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;

/**
 * A fuzzed write's rows and what a reader must see once they are committed, by an independent
 * model: a primary-key table shows the last value per key with deletes applied (the fixtures'
 * {@link Workload}), an append table every row it was given (keys repeat; no deletes), a
 * postpone-bucket table nothing (Paimon keeps its rows unreadable until a rescale). Rows are
 * compared as sorted lines {@code p,k,v}, so a row read twice or lost shows.
 *
 * <p>Immutable; thread-safe.
 *
 * @param rows the rows in write order
 * @param visible the lines a reader must see after the commit, sorted
 */
record FuzzRows(List<InternalRow> rows, List<String> visible) {

    /** The rows of {@code plan} and what its table must show. */
    static FuzzRows of(FuzzCase.WritePlan plan) {
        if (plan.mode().primaryKey()) {
            Workload w = Workload.random(plan.rowSeed(), plan.rows(), plan.keys(), plan.partitions(), plan.valueBytes());
            List<String> visible = new ArrayList<>();
            if (plan.mode().readable()) {
                for (Map.Entry<List<Integer>, String> e : w.expected().entrySet()) {
                    visible.add(line(e.getKey().get(0), e.getKey().get(1), e.getValue()));
                }
            }
            Collections.sort(visible);
            return new FuzzRows(w.rows(), List.copyOf(visible));
        }
        Random random = new Random(plan.rowSeed());
        List<InternalRow> rows = new ArrayList<>(plan.rows());
        List<String> visible = new ArrayList<>(plan.rows());
        for (int i = 0; i < plan.rows(); i++) {
            int p = random.nextInt(plan.partitions());
            int k = random.nextInt(plan.keys());
            String v = TestTables.value(random, Integer.toString(i), plan.valueBytes());
            rows.add(GenericRow.of(p, k, BinaryString.fromString(v)));
            visible.add(line(p, k, v));
        }
        Collections.sort(visible);
        return new FuzzRows(List.copyOf(rows), List.copyOf(visible));
    }

    /** Every row a fresh reader sees at the table's latest snapshot, as sorted lines. */
    static List<String> read(FileStoreTable table) throws Exception {
        List<String> lines = new ArrayList<>();
        ReadBuilder builder = table.newReadBuilder();
        try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
            reader.forEachRemaining(row -> lines.add(line(row.getInt(0), row.getInt(1), row.isNullAt(2) ? null : row.getString(2).toString())));
        }
        Collections.sort(lines);
        return lines;
    }

    /** How {@code actual} differs from {@code expected} in a few words; empty when equal. */
    static String difference(List<String> expected, List<String> actual) {
        if (expected.equals(actual)) {
            return "";
        }
        List<String> missing = new ArrayList<>(expected);
        actual.forEach(missing::remove);
        List<String> extra = new ArrayList<>(actual);
        expected.forEach(extra::remove);
        return actual.size() + " rows, expected " + expected.size() + ": " + missing.size() + " missing (e.g. "
                + abbreviate(missing) + "), " + extra.size() + " extra (e.g. " + abbreviate(extra) + ")";
    }

    private static String abbreviate(List<String> lines) {
        return lines.isEmpty() ? "-" : lines.get(0).length() > 40 ? lines.get(0).substring(0, 40) + "..." : lines.get(0);
    }

    private static String line(int p, int k, String v) {
        return p + "," + k + "," + v;
    }
}
