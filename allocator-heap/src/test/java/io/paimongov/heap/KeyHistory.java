package io.paimongov.heap;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;

/**
 * The reference model of a streaming test, built from the rows the test wrote and nothing else:
 * for every key of partition 0 the states it went through in write order ({@code null} = absent),
 * and where each key stood at the last checkpoint that waited for compaction. Values are unique per
 * row, so a value names one state of one key.
 *
 * <p>Not thread-safe: the test thread only.
 */
final class KeyHistory {

    private final Map<Integer, List<String>> states = new HashMap<>();
    private final Map<Integer, Integer> atLastWait = new HashMap<>();

    /** The key's next state after {@code row}: its value, or absent for a delete. */
    void apply(InternalRow row) {
        String value = row.getRowKind() == RowKind.DELETE ? null : row.getString(2).toString();
        history(row.getInt(1)).add(value);
    }

    /** A checkpoint that waited for compaction committed: every key's current state is the floor now. */
    void waitedCheckpoint() {
        states.forEach((k, s) -> atLastWait.put(k, s.size() - 1));
    }

    /** The content the rows so far leave, as {@link TestTables#read} gives it. */
    Map<List<Integer>, String> fold() {
        Map<List<Integer>, String> content = TestTables.emptyModel();
        states.forEach((k, s) -> {
            String last = s.get(s.size() - 1);
            if (last != null) {
                content.put(List.of(0, k), last);
            }
        });
        return content;
    }

    /**
     * Model (ii): per key, what a reader sees is a state the key really had, and not one from before
     * the last checkpoint that waited for compaction.
     */
    void assertVisibleIsRealAndNotOlderThanTheLastWait(Map<List<Integer>, String> visible, String when) {
        for (List<Integer> key : visible.keySet()) {
            assertThat(key.get(0)).as("partition of a visible key").isZero();
            assertThat(states).as(when + ": a visible key was written").containsKey(key.get(1));
        }
        states.forEach((k, s) -> {
            String seen = visible.get(List.of(0, k));
            int floor = atLastWait.getOrDefault(k, 0);
            boolean found = false;
            for (int j = floor; j < s.size() && !found; j++) {
                found = Objects.equals(s.get(j), seen);
            }
            assertThat(found).as(when + ": key " + k + " shows " + seen + ", not one of its states since the last waiting checkpoint "
                    + s.subList(floor, s.size())).isTrue();
        });
    }

    /**
     * Model (iii): folds a changelog read in order. Each change must move its key forward through its
     * states (never back to an older one); a retraction (-U, -D) with {@code retractionsCarryValues}
     * must retract exactly the value the fold holds. Returns the folded content.
     */
    Map<List<Integer>, String> foldChangelog(List<InternalRow> changes, boolean retractionsCarryValues) {
        Map<Integer, Integer> position = new HashMap<>();
        Map<List<Integer>, String> content = TestTables.emptyModel();
        for (InternalRow row : changes) {
            int k = row.getInt(1);
            List<String> s = states.get(k);
            assertThat(s).as("a change of a key that was never written: " + k).isNotNull();
            int at = position.getOrDefault(k, 0);
            RowKind kind = row.getRowKind();
            if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
                String value = row.getString(2).toString();
                int j = s.indexOf(value);
                assertThat(j).as("key " + k + ": " + kind + " " + value + " is a state it had, not before its current one " + s.get(at))
                        .isGreaterThanOrEqualTo(at);
                position.put(k, j);
                content.put(List.of(0, k), value);
                continue;
            }
            if (retractionsCarryValues) {
                assertThat(row.isNullAt(2) ? null : row.getString(2).toString())
                        .as("key " + k + ": " + kind + " retracts what the fold holds").isEqualTo(content.get(List.of(0, k)));
            }
            if (kind == RowKind.DELETE) {
                int j = at;
                while (j < s.size() && s.get(j) != null) {
                    j++;
                }
                assertThat(j).as("key " + k + ": a delete where it was absent later").isLessThan(s.size());
                position.put(k, j);
                content.remove(List.of(0, k));
            }
        }
        return content;
    }

    private List<String> history(int k) {
        return states.computeIfAbsent(k, x -> {
            List<String> s = new ArrayList<>();
            s.add(null);
            return s;
        });
    }
}
