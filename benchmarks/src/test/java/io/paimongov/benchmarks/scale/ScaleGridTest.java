package io.paimongov.benchmarks.scale;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The spill series is sized so that its 5% budget is a legal one. */
class ScaleGridTest {

    /** Binary row of (INT, INT, STRING of 64 bytes): 8 bytes of null bits, 3 fixed slots of 8, the 64 string bytes. */
    private static final long ROW_BYTES_64 = 8 + 3 * 8 + 64;

    @Test
    void aSmallInputIsGrownUntilFivePercentOfItIsTheSeriesLeastBudget() {
        ScaleGrid grid = ScaleGrid.quick(200_000, 64, 64L << 20);

        assertThat(grid.spills()).hasSize(2);
        for (ScaleCell spill : grid.spills()) {
            // 6 MiB / 0.05 = 125,829,120 bytes of input, at 96 bytes a row: 1,310,720 rows.
            assertThat(spill.rows()).isEqualTo(1_310_720);
            assertThat(spill.inputBytes()).isEqualTo(1_310_720 * ROW_BYTES_64);
            assertThat(spill.writers()).isEqualTo(ScaleGrid.SPILL_WRITERS);
        }
        assertThat(grid.cells()).allSatisfy(c -> assertThat(c.rows()).isEqualTo(200_000));
    }

    @Test
    void aLargeInputIsKept() {
        ScaleGrid grid = ScaleGrid.quick(2_000_000, 64, 64L << 20);

        assertThat(grid.spills()).allSatisfy(c -> assertThat(c.rows()).isEqualTo(2_000_000));
    }

    @Test
    void anotherLeastBudgetSizesTheSeriesAgainAndASeriesLeftOutStaysOut() {
        ScaleGrid grid = ScaleGrid.quick(200_000, 64, 64L << 20).withSpillMinBudget(3L << 20);

        // 3 MiB / 0.05 = 62,914,560 bytes of input: 655,360 rows of 96 bytes.
        assertThat(grid.spills()).allSatisfy(c -> assertThat(c.rows()).isEqualTo(655_360));
        assertThat(ScaleGrid.quick(200_000, 64, 64L << 20).withSpillMinBudget(1).spills())
                .allSatisfy(c -> assertThat(c.rows()).isEqualTo(200_000));
        assertThat(ScaleGrid.quick(200_000, 64, 64L << 20).withoutSpills().withSpillMinBudget(6L << 20).spills()).isEmpty();
    }
}
