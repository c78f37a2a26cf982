package io.paimongov.connector.spark.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.VarCharType;
import org.apache.spark.sql.catalyst.util.CharVarcharUtils;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.VarcharType;

/**
 * Spark SQL types and Paimon types, both ways, as Paimon's own Spark catalog maps them so that a
 * table made by either reads the same: {@code STRING} is Paimon {@code STRING} ({@code
 * VARCHAR(MAX)}), {@code CHAR(n)}/{@code VARCHAR(n)} keep their length, {@code BINARY} is {@code
 * BYTES}, {@code TIMESTAMP} (Spark's session-time-zone instant) is {@code TIMESTAMP_LTZ(6)}, {@code
 * TIMESTAMP_NTZ} is {@code TIMESTAMP(6)}, arrays, maps and structs nest any of these. Anything else
 * (intervals, variants, Paimon's {@code TIME}, {@code MULTISET}, {@code BLOB}, collated strings) is
 * refused with an {@link IllegalArgumentException} that names the column and the type.
 *
 * <p>Stateless; thread-safe.
 */
final class SparkTypes {

    static final String SUPPORTED = "BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, STRING, CHAR, VARCHAR,"
            + " BINARY, DATE, TIMESTAMP, TIMESTAMP_NTZ, ARRAY, MAP, STRUCT";

    private SparkTypes() {}

    /** The Spark schema of a Paimon row type. */
    static StructType toSpark(RowType row) {
        return toSpark("", row);
    }

    /** The Spark type of column {@code column} of Paimon type {@code type}. */
    static DataType toSpark(String column, org.apache.paimon.types.DataType type) {
        return switch (type.getTypeRoot()) {
            case BOOLEAN -> DataTypes.BooleanType;
            case TINYINT -> DataTypes.ByteType;
            case SMALLINT -> DataTypes.ShortType;
            case INTEGER -> DataTypes.IntegerType;
            case BIGINT -> DataTypes.LongType;
            case FLOAT -> DataTypes.FloatType;
            case DOUBLE -> DataTypes.DoubleType;
            case DECIMAL -> DataTypes.createDecimalType(((DecimalType) type).getPrecision(), ((DecimalType) type).getScale());
            case CHAR -> new CharType(((org.apache.paimon.types.CharType) type).getLength());
            case VARCHAR -> {
                int length = ((VarCharType) type).getLength();
                yield length == VarCharType.MAX_LENGTH ? DataTypes.StringType : new VarcharType(length);
            }
            case BINARY, VARBINARY -> DataTypes.BinaryType;
            case DATE -> DataTypes.DateType;
            case TIMESTAMP_WITHOUT_TIME_ZONE -> DataTypes.TimestampNTZType;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> DataTypes.TimestampType;
            case ARRAY -> {
                org.apache.paimon.types.DataType element = ((ArrayType) type).getElementType();
                yield DataTypes.createArrayType(toSpark(column + ".element", element), element.isNullable());
            }
            case MAP -> {
                MapType map = (MapType) type;
                yield DataTypes.createMapType(toSpark(column + ".key", map.getKeyType()),
                        toSpark(column + ".value", map.getValueType()), map.getValueType().isNullable());
            }
            case ROW -> toSpark(column, (RowType) type);
            default -> throw unsupported(column, type.asSQLString());
        };
    }

    private static StructType toSpark(String prefix, RowType row) {
        List<StructField> fields = new ArrayList<>();
        for (DataField field : row.getFields()) {
            String name = prefix.isEmpty() ? field.name() : prefix + "." + field.name();
            StructField f = DataTypes.createStructField(field.name(), toSpark(name, field.type()), field.type().isNullable());
            fields.add(field.description() == null ? f : f.withComment(field.description()));
        }
        return DataTypes.createStructType(fields);
    }

    /**
     * The Paimon type of column {@code column} declared with Spark type {@code type}; {@code
     * metadata} may hold the declared {@code CHAR}/{@code VARCHAR} of a column Spark turned into
     * {@code STRING}.
     */
    static org.apache.paimon.types.DataType toPaimon(String column, DataType type, boolean nullable, Metadata metadata) {
        DataType declared = metadata == null ? type : CharVarcharUtils.getRawType(metadata).getOrElse(() -> type);
        return toPaimon(column, declared).copy(nullable);
    }

    private static org.apache.paimon.types.DataType toPaimon(String column, DataType type) {
        if (type instanceof BooleanType) {
            return org.apache.paimon.types.DataTypes.BOOLEAN();
        } else if (type instanceof ByteType) {
            return org.apache.paimon.types.DataTypes.TINYINT();
        } else if (type instanceof ShortType) {
            return org.apache.paimon.types.DataTypes.SMALLINT();
        } else if (type instanceof IntegerType) {
            return org.apache.paimon.types.DataTypes.INT();
        } else if (type instanceof LongType) {
            return org.apache.paimon.types.DataTypes.BIGINT();
        } else if (type instanceof FloatType) {
            return org.apache.paimon.types.DataTypes.FLOAT();
        } else if (type instanceof DoubleType) {
            return org.apache.paimon.types.DataTypes.DOUBLE();
        } else if (type instanceof org.apache.spark.sql.types.DecimalType d) {
            return org.apache.paimon.types.DataTypes.DECIMAL(d.precision(), d.scale());
        } else if (type instanceof CharType c) {
            return org.apache.paimon.types.DataTypes.CHAR(c.length());
        } else if (type instanceof VarcharType v) {
            return org.apache.paimon.types.DataTypes.VARCHAR(v.length());
        } else if (DataTypes.StringType.equals(type)) {
            return org.apache.paimon.types.DataTypes.STRING();
        } else if (type instanceof BinaryType) {
            return org.apache.paimon.types.DataTypes.BYTES();
        } else if (type instanceof DateType) {
            return org.apache.paimon.types.DataTypes.DATE();
        } else if (type instanceof TimestampType) {
            return org.apache.paimon.types.DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6);
        } else if (type instanceof TimestampNTZType) {
            return org.apache.paimon.types.DataTypes.TIMESTAMP(6);
        } else if (type instanceof org.apache.spark.sql.types.ArrayType a) {
            return org.apache.paimon.types.DataTypes.ARRAY(toPaimon(column + ".element", a.elementType()).copy(a.containsNull()));
        } else if (type instanceof org.apache.spark.sql.types.MapType m) {
            return org.apache.paimon.types.DataTypes.MAP(toPaimon(column + ".key", m.keyType()).copy(false),
                    toPaimon(column + ".value", m.valueType()).copy(m.valueContainsNull()));
        } else if (type instanceof StructType s) {
            RowType.Builder row = RowType.builder();
            for (StructField field : s.fields()) {
                row.field(field.name(), toPaimon(column + "." + field.name(), field.dataType(), field.nullable(), field.metadata()),
                        field.getComment().isDefined() ? field.getComment().get() : null);
            }
            return row.build();
        }
        throw unsupported(column, type.sql());
    }

    /**
     * Whether values of Spark type {@code given} are values of {@code expected} (a type {@link
     * #toSpark} made): the same types, nullability and comments aside, and {@code STRING} for
     * {@code CHAR}/{@code VARCHAR}, which Spark writes as strings after checking their length.
     */
    static boolean writable(DataType given, DataType expected) {
        if (expected instanceof CharType || expected instanceof VarcharType) {
            return DataTypes.StringType.equals(given) || expected.equals(given);
        }
        if (expected instanceof org.apache.spark.sql.types.ArrayType e && given instanceof org.apache.spark.sql.types.ArrayType g) {
            return writable(g.elementType(), e.elementType());
        }
        if (expected instanceof org.apache.spark.sql.types.MapType e && given instanceof org.apache.spark.sql.types.MapType g) {
            return writable(g.keyType(), e.keyType()) && writable(g.valueType(), e.valueType());
        }
        if (expected instanceof StructType e && given instanceof StructType g) {
            if (e.fields().length != g.fields().length) {
                return false;
            }
            for (int i = 0; i < e.fields().length; i++) {
                if (!writable(g.fields()[i].dataType(), e.fields()[i].dataType())) {
                    return false;
                }
            }
            return true;
        }
        return expected.equals(given);
    }

    private static IllegalArgumentException unsupported(String column, String type) {
        return new IllegalArgumentException("column '" + column + "' has type " + type + ", which the governed Spark catalog"
                + " does not convert; it takes " + SUPPORTED);
    }
}
