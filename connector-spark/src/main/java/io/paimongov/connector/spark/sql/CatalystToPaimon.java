package io.paimongov.connector.spark.sql;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;

/**
 * Spark's internal rows (what a DataSource V2 writer receives, in the table's column order and
 * types, as Spark's write analysis aligns them) as Paimon rows of the table. Every value is copied:
 * Spark reuses its rows and their buffers between calls. Every row is an insert (an upsert for a
 * primary-key table).
 *
 * <p>Immutable; serializable into tasks; {@link #toPaimon} may run on many threads at once.
 */
final class CatalystToPaimon implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Reads one value, known not to be null, at a position of a Spark row or array. */
    @FunctionalInterface
    interface Getter extends Serializable {
        Object get(SpecializedGetters from, int pos);
    }

    private final Getter[] fields;

    private CatalystToPaimon(Getter[] fields) {
        this.fields = fields;
    }

    /** The converter of rows of {@code table} (as {@link SparkTypes} maps its types to Spark's). */
    static CatalystToPaimon of(RowType table) {
        return new CatalystToPaimon(getters(table.getFields()));
    }

    /** {@code row} as a Paimon insert. */
    GenericRow toPaimon(InternalRow row) {
        GenericRow out = new GenericRow(fields.length);
        for (int i = 0; i < fields.length; i++) {
            out.setField(i, row.isNullAt(i) ? null : fields[i].get(row, i));
        }
        return out;
    }

    /** The getter of a value of Paimon type {@code type}. */
    static Getter getter(DataType type) {
        return switch (type.getTypeRoot()) {
            case BOOLEAN -> SpecializedGetters::getBoolean;
            case TINYINT -> SpecializedGetters::getByte;
            case SMALLINT -> SpecializedGetters::getShort;
            case INTEGER, DATE -> SpecializedGetters::getInt;
            case BIGINT -> SpecializedGetters::getLong;
            case FLOAT -> SpecializedGetters::getFloat;
            case DOUBLE -> SpecializedGetters::getDouble;
            case CHAR, VARCHAR -> (from, pos) -> BinaryString.fromBytes(from.getUTF8String(pos).getBytes());
            case BINARY, VARBINARY -> SpecializedGetters::getBinary;
            case DECIMAL -> decimal((DecimalType) type);
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> (from, pos) -> Timestamp.fromMicros(from.getLong(pos));
            case ARRAY -> array(getter(((ArrayType) type).getElementType()));
            case MAP -> map(getter(((MapType) type).getKeyType()), getter(((MapType) type).getValueType()));
            case ROW -> row(getters(((RowType) type).getFields()));
            default -> throw new IllegalArgumentException("type " + type + " is not converted from Spark; the catalog takes "
                    + SparkTypes.SUPPORTED);
        };
    }

    private static Getter[] getters(List<DataField> fields) {
        Getter[] getters = new Getter[fields.size()];
        for (int i = 0; i < getters.length; i++) {
            getters[i] = getter(fields.get(i).type());
        }
        return getters;
    }

    private static Getter decimal(DecimalType type) {
        int precision = type.getPrecision();
        int scale = type.getScale();
        return (from, pos) -> {
            org.apache.spark.sql.types.Decimal value = from.getDecimal(pos, precision, scale);
            Decimal decimal = Decimal.fromBigDecimal(value.toJavaBigDecimal(), precision, scale);
            if (decimal == null) {
                throw new IllegalArgumentException(value + " does not fit DECIMAL(" + precision + ", " + scale + ")");
            }
            return decimal;
        };
    }

    private static Getter array(Getter element) {
        return (from, pos) -> new GenericArray(values(from.getArray(pos), element));
    }

    private static Getter map(Getter key, Getter value) {
        return (from, pos) -> {
            MapData map = from.getMap(pos);
            Object[] keys = values(map.keyArray(), key);
            Object[] values = values(map.valueArray(), value);
            Map<Object, Object> out = new LinkedHashMap<>();
            for (int i = 0; i < keys.length; i++) {
                out.put(keys[i], values[i]);
            }
            return new GenericMap(out);
        };
    }

    private static Getter row(Getter[] fields) {
        return (from, pos) -> {
            InternalRow struct = from.getStruct(pos, fields.length);
            GenericRow out = new GenericRow(fields.length);
            for (int i = 0; i < fields.length; i++) {
                out.setField(i, struct.isNullAt(i) ? null : fields[i].get(struct, i));
            }
            return out;
        };
    }

    private static Object[] values(ArrayData array, Getter element) {
        Object[] out = new Object[array.numElements()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.isNullAt(i) ? null : element.get(array, i);
        }
        return out;
    }
}
