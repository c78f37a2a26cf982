package io.paimongov.connector.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.spark.SparkWriteAccumulators.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A report holds every accumulated field under its own name: distinct values in, the same values out by name. */
class GovernedWriteReportTest {

    @Test
    void everyFieldKeepsItsValueUnderItsName() {
        long[] values = new long[Field.values().length];
        for (Field field : Field.values()) {
            values[field.ordinal()] = 100 + field.ordinal();
        }
        Map<String, Long> map = GovernedWriteReport.of(List.of(3, 1), 7, 2, values).asMap();

        List<String> names = new ArrayList<>(List.of("tasks", "failedTasks"));
        for (Field field : Field.values()) {
            names.add(field.field());
        }
        assertThat(map.keySet()).containsExactlyElementsOf(names);
        assertThat(map.get("tasks")).isEqualTo(7);
        assertThat(map.get("failedTasks")).isEqualTo(2);
        for (Field field : Field.values()) {
            assertThat(map.get(field.field())).as(field.field()).isEqualTo(100 + field.ordinal());
        }
    }
}
