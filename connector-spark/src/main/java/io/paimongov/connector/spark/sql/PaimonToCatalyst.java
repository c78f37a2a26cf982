package io.paimongov.connector.spark.sql;

import java.io.Serializable;
import java.util.List;
import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Paimon rows as Spark's internal rows, for reads: each value is copied out of the Paimon row,
 * which Paimon's readers reuse.
 *
 * <p>Immutable; serializable into tasks; {@link #toSpark} may run on many threads at once.
 */
final class PaimonToCatalyst implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Reads one value, known not to be null, at a position of a Paimon row or array. */
    @FunctionalInterface
    interface Getter extends Serializable {
        Object get(DataGetters from, int pos);
    }

    private final Getter[] fields;

    private PaimonToCatalyst(Getter[] fields) {
        this.fields = fields;
    }

    /** The converter of rows of type {@code row}. */
    static PaimonToCatalyst of(RowType row) {
        return new PaimonToCatalyst(getters(row.getFields()));
    }

    /** {@code row} as a new Spark row. */
    GenericInternalRow toSpark(InternalRow row) {
        return convert(row, fields);
    }

    private static GenericInternalRow convert(InternalRow row, Getter[] fields) {
        Object[] values = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            values[i] = row.isNullAt(i) ? null : fields[i].get(row, i);
        }
        return new GenericInternalRow(values);
    }

    private static Getter getter(DataType type) {
        return switch (type.getTypeRoot()) {
            case BOOLEAN -> DataGetters::getBoolean;
            case TINYINT -> DataGetters::getByte;
            case SMALLINT -> DataGetters::getShort;
            case INTEGER, DATE -> DataGetters::getInt;
            case BIGINT -> DataGetters::getLong;
            case FLOAT -> DataGetters::getFloat;
            case DOUBLE -> DataGetters::getDouble;
            case CHAR, VARCHAR -> (from, pos) -> UTF8String.fromBytes(from.getString(pos).toBytes());
            case BINARY, VARBINARY -> DataGetters::getBinary;
            case DECIMAL -> decimal((DecimalType) type);
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> {
                int precision = DataTypeChecks.getPrecision(type);
                yield (from, pos) -> from.getTimestamp(pos, precision).toMicros();
            }
            case ARRAY -> array(getter(((ArrayType) type).getElementType()));
            case MAP -> map(getter(((MapType) type).getKeyType()), getter(((MapType) type).getValueType()));
            case ROW -> {
                Getter[] fields = getters(((RowType) type).getFields());
                yield (from, pos) -> convert(from.getRow(pos, fields.length), fields);
            }
            default -> throw new IllegalArgumentException("type " + type + " is not converted to Spark; the catalog takes "
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
        return (from, pos) -> Decimal.apply(from.getDecimal(pos, precision, scale).toBigDecimal(), precision, scale);
    }

    private static Getter array(Getter element) {
        return (from, pos) -> new GenericArrayData(values(from.getArray(pos), element));
    }

    private static Getter map(Getter key, Getter value) {
        return (from, pos) -> {
            InternalMap map = from.getMap(pos);
            return new ArrayBasedMapData(new GenericArrayData(values(map.keyArray(), key)),
                    new GenericArrayData(values(map.valueArray(), value)));
        };
    }

    private static Object[] values(InternalArray array, Getter element) {
        Object[] out = new Object[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.isNullAt(i) ? null : element.get(array, i);
        }
        return out;
    }
}
