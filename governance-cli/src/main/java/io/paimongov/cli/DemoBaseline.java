package io.paimongov.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * What the demo table held before a run that continues into it ({@code --warehouse} holding {@code
 * demo.kv} with the same layout): the reference model starts from it. Values are kept as 64-bit
 * hashes (FNV-1a of their UTF-8 bytes), so memory is a map entry per row, not the values.
 *
 * <p>Primary-key tables: one value per key {@code (p, k)}. Append tables keep every row, so a
 * multiset of {@code (p, k, value)}: the rows of this run are added to it, not merged.
 *
 * <p>Not thread-safe; built once, then read by the one thread that verifies.
 */
final class DemoBaseline {

    /** A table without rows, or a fresh one. */
    static final DemoBaseline EMPTY = new DemoBaseline(true);

    private final boolean primaryKey;
    /** Primary key: key -> value hash. */
    private final Map<Long, Long> values = new HashMap<>();
    /** Append: row hash -> how many such rows are left to be read. */
    private final Map<Long, Integer> rows = new HashMap<>();
    private long size;

    private DemoBaseline(boolean primaryKey) {
        this.primaryKey = primaryKey;
    }

    /** Reads the table's current content. */
    static DemoBaseline read(FileStoreTable table, boolean primaryKey) throws IOException {
        DemoBaseline b = new DemoBaseline(primaryKey);
        DemoTable.forEachRow(table, row -> b.add(row.getInt(0), row.getInt(1), row.isNullAt(2) ? null : row.getString(2)));
        return b;
    }

    private void add(int p, int k, BinaryString v) {
        size++;
        if (primaryKey) {
            values.put(key(p, k), hash(v));
        } else {
            rows.merge(rowHash(p, k, hash(v)), 1, Integer::sum);
        }
    }

    /** Rows the table held. */
    long size() {
        return size;
    }

    /** Primary key: the keys and value hashes. */
    Map<Long, Long> values() {
        return values;
    }

    /** Append: takes one row {@code (p, k, v)} off the multiset; false when there is none left. */
    boolean takeRow(int p, int k, BinaryString v) {
        long h = rowHash(p, k, hash(v));
        Integer left = rows.get(h);
        if (left == null) {
            return false;
        }
        if (left == 1) {
            rows.remove(h);
        } else {
            rows.put(h, left - 1);
        }
        return true;
    }

    /** Append: rows of the baseline not read yet. */
    long rowsLeft() {
        return rows.values().stream().mapToLong(Integer::longValue).sum();
    }

    static long key(int p, int k) {
        return ((long) p << 32) | (k & 0xFFFFFFFFL);
    }

    static long hash(BinaryString v) {
        if (v == null) {
            return 0;
        }
        long h = 0xcbf29ce484222325L;
        for (byte b : v.toString().getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        return h;
    }

    private static long rowHash(int p, int k, long valueHash) {
        return (key(p, k) * 0x9E3779B97F4A7C15L) ^ valueHash;
    }
}
