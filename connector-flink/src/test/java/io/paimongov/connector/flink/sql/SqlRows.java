package io.paimongov.connector.flink.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.types.Row;

/**
 * Input rows of (k INT, v STRING, d STRING) and the table content they must give, computed from the
 * rows alone: a primary key keeps its last row (deletes of matching keys remove it), a
 * cross-partition key lives in the partition of its last row, an append table keeps every row.
 */
final class SqlRows {

    private SqlRows() {}

    /** {@code count} rows over {@code keys} keys and partitions a, b, c, values tagged with {@code tag}. */
    static List<Row> random(long seed, int count, int keys, String tag) {
        Random random = new Random(seed);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            rows.add(Row.of(random.nextInt(keys), tag + "-" + i, String.valueOf((char) ('a' + random.nextInt(3)))));
        }
        return rows;
    }

    /** Primary key (d, k): last value per (d, k), keys below {@code deletedBelow} removed; as sorted {@code Row.toString()}. */
    static List<String> byPartitionAndKey(List<List<Row>> rounds, int deletedBelow) {
        Map<String, Row> last = new TreeMap<>();
        rounds.forEach(round -> round.forEach(r -> last.put(r.getField(2) + "/" + r.getField(0), r)));
        return sorted(last.values().stream().filter(r -> (Integer) r.getField(0) >= deletedBelow).toList());
    }

    /** Primary key (k) across partitions: the last row per k, keys below {@code deletedBelow} removed. */
    static List<String> byKey(List<List<Row>> rounds, int deletedBelow) {
        Map<Integer, Row> last = new TreeMap<>();
        rounds.forEach(round -> round.forEach(r -> last.put((Integer) r.getField(0), r)));
        return sorted(last.values().stream().filter(r -> (Integer) r.getField(0) >= deletedBelow).toList());
    }

    /** Every row of every round. */
    static List<String> all(List<List<Row>> rounds) {
        List<Row> rows = new ArrayList<>();
        rounds.forEach(rows::addAll);
        return sorted(rows);
    }

    static List<String> sorted(List<?> rows) {
        return rows.stream().map(Object::toString).sorted().toList();
    }
}
