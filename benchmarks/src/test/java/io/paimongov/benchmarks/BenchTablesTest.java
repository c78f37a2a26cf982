package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.paimon.data.GenericRow;
import org.junit.jupiter.api.Test;

/** The shared statistics and the row generator behave as the measures rely on. */
class BenchTablesTest {

    @Test
    void medianOfEvenAndOddCounts() {
        assertThat(BenchTables.median(List.of(5L, 1L, 3L))).isEqualTo(3);
        assertThat(BenchTables.median(List.of(4L, 1L, 3L, 2L))).isEqualTo(2);
    }

    @Test
    void percentileIsNearestRank() {
        List<Long> hundred = new java.util.ArrayList<>();
        for (long i = 100; i >= 1; i--) {
            hundred.add(i);
        }
        assertThat(BenchTables.percentile(hundred, 50)).isEqualTo(50);
        assertThat(BenchTables.percentile(hundred, 99)).isEqualTo(99);
        assertThat(BenchTables.percentile(List.of(7L, 3L), 99)).isEqualTo(7);
        assertThat(BenchTables.percentile(List.of(7L), 50)).isEqualTo(7);
        assertThatThrownBy(() -> BenchTables.percentile(List.of(), 50)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sameSeedSameRows() {
        BenchTables.Rows a = new BenchTables.Rows(7, 1000, 40);
        BenchTables.Rows b = new BenchTables.Rows(7, 1000, 40);
        for (int i = 0; i < 100; i++) {
            GenericRow x = a.next();
            GenericRow y = b.next();
            assertThat(x.getInt(0)).isEqualTo(y.getInt(0)).isBetween(0, 999);
            assertThat(x.getString(1).toString()).isEqualTo(y.getString(1).toString()).hasSize(40).matches("[a-z]+");
        }
    }
}
