package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;

/** The size computed from a row's values equals the size of the row the serializer writes. */
class RowSizeTest {

    private static final RowType TYPE = RowType.of(
            DataTypes.INT(), DataTypes.BIGINT(), DataTypes.STRING(), DataTypes.BYTES(), DataTypes.DECIMAL(10, 2),
            DataTypes.DECIMAL(30, 4), DataTypes.BOOLEAN(), DataTypes.DOUBLE(), DataTypes.TIMESTAMP(6),
            DataTypes.ARRAY(DataTypes.INT()));

    @Test
    void equalsTheSerializedSizeForRandomRowsOfEveryKindOfValue() {
        RowSize size = new RowSize(TYPE);
        InternalRowSerializer serializer = new InternalRowSerializer(TYPE);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 5_000; i++) {
            InternalRow row = GenericRow.of(
                    maybe(random, random.nextInt()),
                    maybe(random, random.nextLong()),
                    maybe(random, BinaryString.fromString("x".repeat(random.nextInt(0, 40)))),
                    maybe(random, new byte[random.nextInt(0, 40)]),
                    maybe(random, Decimal.fromBigDecimal(BigDecimal.valueOf(random.nextInt(), 2), 10, 2)),
                    maybe(random, Decimal.fromBigDecimal(BigDecimal.valueOf(random.nextLong(), 4), 30, 4)),
                    maybe(random, random.nextBoolean()),
                    maybe(random, random.nextDouble()),
                    random.nextInt(4) == 0 ? Timestamp.fromEpochMillis(random.nextLong(1L << 40), 123) : null,
                    random.nextInt(8) == 0 ? new GenericArray(new int[] {1, 2, 3}) : null);
            assertThat(size.of(row)).as("row %s", i).isEqualTo(serializer.toBinaryRow(row).getSizeInBytes());
            assertThat(size.of(serializer.toBinaryRow(row).copy())).isEqualTo(serializer.toBinaryRow(row).getSizeInBytes());
        }
    }

    private static Object maybe(SplittableRandom random, Object value) {
        return random.nextInt(5) == 0 ? null : value;
    }
}
