package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("reliability")
class RowShapeTest {

    private static final RowType TYPE =
            RowType.builder()
                    .field("p", DataTypes.INT().notNull())
                    .field("k", DataTypes.BIGINT().notNull())
                    .field("v", DataTypes.STRING())
                    .build();
    private static final RowShape SHAPE = RowShape.of("db.t", TYPE);

    @Test
    void aMatchingRowPassesGenericOrBinary() {
        GenericRow row = GenericRow.of(1, 2L, BinaryString.fromString("v"));
        BinaryRow binary = new InternalRowSerializer(TYPE).toBinaryRow(row).copy();
        assertThatCode(() -> SHAPE.check(row)).doesNotThrowAnyException();
        assertThatCode(() -> SHAPE.check(binary)).doesNotThrowAnyException();
        assertThatCode(() -> SHAPE.check(GenericRow.of(1, 2L, null))).doesNotThrowAnyException();
    }

    @Test
    void eachMismatchNamesTheFieldItsTypeAndWhatTheRowHolds() {
        assertThatThrownBy(() -> SHAPE.check(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("row is null; table 'db.t' takes rows of (p INT NOT NULL, k BIGINT NOT NULL, v STRING)");
        assertThatThrownBy(() -> SHAPE.check(GenericRow.of(1, 2L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("row has 2 fields; table 'db.t' has 3: (p INT NOT NULL, k BIGINT NOT NULL, v STRING)");
        assertThatThrownBy(() -> SHAPE.check(GenericRow.of(1, 2L, BinaryString.fromString("v"), 4)))
                .hasMessage("row has 4 fields; table 'db.t' has 3: (p INT NOT NULL, k BIGINT NOT NULL, v STRING)");
        assertThatThrownBy(() -> SHAPE.check(GenericRow.of(1, 2, BinaryString.fromString("v"))))
                .hasMessage("field 'k' (BIGINT NOT NULL) of table 'db.t' holds a java.lang.Integer; a java.lang.Long is expected");
        assertThatThrownBy(() -> SHAPE.check(GenericRow.of(1, 2L, "a java string")))
                .hasMessage("field 'v' (STRING) of table 'db.t' holds a java.lang.String; a org.apache.paimon.data.BinaryString is expected");
        assertThatThrownBy(() -> SHAPE.check(GenericRow.of(1, null, BinaryString.fromString("v"))))
                .hasMessage("field 'k' (BIGINT NOT NULL) of table 'db.t' is null");
        GenericRow nullKey = GenericRow.of(1, 0L, BinaryString.fromString("v"));
        nullKey.setField(1, null);
        BinaryRow binaryNullKey = new InternalRowSerializer(
                        RowType.builder().field("p", DataTypes.INT()).field("k", DataTypes.BIGINT()).field("v", DataTypes.STRING()).build())
                .toBinaryRow(nullKey).copy();
        assertThatThrownBy(() -> SHAPE.check(binaryNullKey)).hasMessage("field 'k' (BIGINT NOT NULL) of table 'db.t' is null");
    }
}
