package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.fixtures.TestTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;
import org.junit.jupiter.api.Test;

/**
 * The generator and its model against an independent replay of the rows, and the verifier's
 * ability to fail: a verification that cannot fail would make {@code verified: true} meaningless.
 */
class DemoWorkloadTest {

    private static final int ROWS = 20_000;

    @Test
    void sameSeedGivesTheSameRowsAndAnotherSeedDoesNot() {
        assertThat(rows(new DemoWorkload(7, 3, 500, 16)))
                .isEqualTo(rows(new DemoWorkload(7, 3, 500, 16)))
                .isNotEqualTo(rows(new DemoWorkload(8, 3, 500, 16)));
    }

    @Test
    void modelAgreesWithAReplayThatKeepsEveryValue() {
        DemoWorkload workload = new DemoWorkload(1, 3, 500, 16);
        Map<List<Integer>, String> replay = replay(rows(workload));

        assertThat(workload.liveKeys()).isEqualTo(replay.size());
        assertThat(workload.deletes()).isBetween(ROWS / 40, ROWS / DemoWorkload.DELETE_ONE_IN);
        assertThat(verify(workload, true, tableOf(replay))).isNull();
    }

    @Test
    void verifierReportsAChangedValue() {
        DemoWorkload workload = new DemoWorkload(1, 3, 500, 16);
        List<InternalRow> table = tableOf(replay(rows(workload)));
        GenericRow first = (GenericRow) table.get(0);
        first.setField(2, BinaryString.fromString("changed"));

        assertThat(verify(workload, true, table)).contains("has value 'changed'");
    }

    @Test
    void verifierReportsAMissingKey() {
        DemoWorkload workload = new DemoWorkload(1, 3, 500, 16);
        List<InternalRow> table = tableOf(replay(rows(workload)));
        table.remove(table.size() - 1);

        assertThat(verify(workload, true, table)).contains("is missing from the table");
    }

    @Test
    void verifierReportsADeletedKeyThatIsStillThere() {
        DemoWorkload workload = new DemoWorkload(1, 3, 500, 16);
        List<InternalRow> rows = rows(workload);
        Map<List<Integer>, String> replay = replay(rows);
        InternalRow deleted =
                rows.stream()
                        .filter(r -> r.getRowKind() == RowKind.DELETE)
                        .filter(r -> !replay.containsKey(List.of(r.getInt(0), r.getInt(1))))
                        .findFirst()
                        .orElseThrow();
        List<InternalRow> table = tableOf(replay);
        table.add(GenericRow.of(deleted.getInt(0), deleted.getInt(1), BinaryString.fromString("zombie")));

        assertThat(verify(workload, true, table)).contains("deleted or never written in the model");
    }

    @Test
    void afterACancelAnyVisibleRowIsAMismatchAndAnEmptyTableVerifies() {
        DemoWorkload workload = new DemoWorkload(1, 3, 500, 16);
        List<InternalRow> table = tableOf(replay(rows(workload)));

        assertThat(verify(workload, false, table)).contains("although nothing was committed");
        DemoWorkload.Verification empty = workload.verifier(false).finish();
        assertThat(empty.verified()).isTrue();
        assertThat(empty.expectedRows()).isZero();
    }

    private static List<InternalRow> rows(DemoWorkload workload) {
        List<InternalRow> rows = new ArrayList<>(ROWS);
        for (int i = 0; i < ROWS; i++) {
            InternalRow row = workload.next();
            rows.add(GenericRow.ofKind(row.getRowKind(), row.getInt(0), row.getInt(1),
                    row.isNullAt(2) ? null : row.getString(2)));
        }
        return rows;
    }

    /** What a deduplicating primary-key table holds after {@code rows}: the fixtures' model, (p, k) -> value. */
    private static Map<List<Integer>, String> replay(List<InternalRow> rows) {
        Map<List<Integer>, String> table = TestTables.emptyModel();
        rows.forEach(row -> TestTables.apply(table, row));
        return table;
    }

    private static List<InternalRow> tableOf(Map<List<Integer>, String> replay) {
        List<InternalRow> table = new ArrayList<>();
        replay.forEach((key, value) -> table.add(GenericRow.of(key.get(0), key.get(1), BinaryString.fromString(value))));
        return table;
    }

    /** The verifier's first mismatch for {@code table}, or null when it verifies. */
    private static String verify(DemoWorkload workload, boolean committed, List<InternalRow> table) {
        DemoWorkload.Verifier verifier = workload.verifier(committed);
        table.forEach(verifier::accept);
        DemoWorkload.Verification v = verifier.finish();
        assertThat(v.rowsReadBack()).isEqualTo(table.size());
        return v.mismatch();
    }
}
