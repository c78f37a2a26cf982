package io.paimongov.connector.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.sql.Date;
import java.time.Instant;
import java.time.LocalDateTime;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The conversion of a micro-batch's Spark rows into the table's Paimon rows, without Spark running:
 * expected values are written out by hand (epoch days and millis computed outside the code).
 */
class SparkRowsTest {

    private static final RowType TABLE = RowType.builder()
            .field("id", DataTypes.BIGINT())
            .field("name", DataTypes.STRING())
            .field("price", DataTypes.DECIMAL(6, 2))
            .field("day", DataTypes.DATE())
            .field("at", DataTypes.TIMESTAMP(6))
            .field("seen", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6))
            .field("ok", DataTypes.BOOLEAN())
            .build();

    @Test
    void columnsAreMatchedByNameAndEveryTypeConverts() {
        // The batch has the columns in another order and one name in other case, as a query may.
        StructType batch = StructType.fromDDL(
                "OK BOOLEAN, seen TIMESTAMP, at TIMESTAMP_NTZ, day DATE, price DECIMAL(10, 3), name STRING, id BIGINT");
        SparkRows rows = SparkRows.of(batch, TABLE);

        InternalRow row = rows.toPaimon(RowFactory.create(true, java.sql.Timestamp.from(Instant.ofEpochMilli(1709296205000L)),
                LocalDateTime.of(2024, 3, 1, 12, 30, 5), Date.valueOf("2024-03-01"), new BigDecimal("12.340"), "x", 7L));

        assertThat(row.getLong(0)).isEqualTo(7L);
        assertThat(row.getString(1).toString()).isEqualTo("x");
        assertThat(row.getDecimal(2, 6, 2).toUnscaledLong()).isEqualTo(1234L);
        assertThat(row.getInt(3)).as("days since 1970-01-01").isEqualTo(19783);
        assertThat(row.getTimestamp(4, 6).toLocalDateTime()).isEqualTo(LocalDateTime.of(2024, 3, 1, 12, 30, 5));
        assertThat(row.getTimestamp(5, 6).getMillisecond()).isEqualTo(1709296205000L);
        assertThat(row.getBoolean(6)).isTrue();
    }

    @Test
    void nullsStayNull() {
        StructType batch = StructType.fromDDL("id BIGINT, name STRING, price DECIMAL(6, 2), day DATE, at TIMESTAMP_NTZ, seen TIMESTAMP, ok BOOLEAN");
        InternalRow row = SparkRows.of(batch, TABLE).toPaimon(RowFactory.create(1L, null, null, null, null, null, null));
        for (int i = 1; i < 7; i++) {
            assertThat(row.isNullAt(i)).as("field %d", i).isTrue();
        }
    }

    @Test
    void aTypeMismatchAnExtraColumnAndAnOverflowingDecimalNameTheColumnOrValue() {
        StructType wrongType = StructType.fromDDL("id INT, name STRING, price DECIMAL(6, 2), day DATE, at TIMESTAMP_NTZ, seen TIMESTAMP, ok BOOLEAN");
        assertThatThrownBy(() -> SparkRows.of(wrongType, TABLE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("column 'id': the micro-batch has INT, the table BIGINT (which takes BIGINT)");

        StructType extra = StructType.fromDDL(
                "id BIGINT, name STRING, price DECIMAL(6, 2), day DATE, at TIMESTAMP_NTZ, seen TIMESTAMP, ok BOOLEAN, note STRING");
        assertThatThrownBy(() -> SparkRows.of(extra, TABLE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the micro-batch column 'note' is not a column of the table");

        StructType batch = StructType.fromDDL("id BIGINT, name STRING, price DECIMAL(10, 2), day DATE, at TIMESTAMP_NTZ, seen TIMESTAMP, ok BOOLEAN");
        SparkRows rows = SparkRows.of(batch, TABLE);
        assertThatThrownBy(() -> rows.toPaimon(RowFactory.create(1L, "x", new BigDecimal("12345.67"), null, null, null, true)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("12345.67 does not fit DECIMAL(6, 2)");
    }

    @Test
    void aTableColumnOfATypeTheWriterDoesNotTakeIsListed() {
        RowType table = RowType.builder().field("id", DataTypes.INT()).field("tags", DataTypes.ARRAY(DataTypes.STRING())).build();
        assertThat(SparkRows.unsupportedColumns(table)).containsExactly("tags ARRAY<STRING>");
        assertThat(SparkRows.unsupportedColumns(TABLE)).isEmpty();
    }
}
