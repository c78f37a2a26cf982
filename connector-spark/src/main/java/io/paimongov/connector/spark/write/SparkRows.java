package io.paimongov.connector.spark.write;

import java.io.Serializable;
import java.math.BigDecimal;
import java.sql.Date;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowType;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Spark rows of a micro-batch as Paimon rows of the table: columns matched by name (exactly, else
 * ignoring case, as Spark resolves them), every table column required, no column left over, the
 * types of {@link #sparkType} only. The schema check runs on the driver once per micro-batch, so a
 * mismatch fails before any task starts; the conversion runs in the tasks. Every row is an insert
 * (an upsert for a primary-key table).
 *
 * <p><b>Thread-safety:</b> immutable; serialized into the tasks.
 */
final class SparkRows implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int[] source;
    private final DataTypeRoot[] roots;
    private final int[] precision;
    private final int[] scale;

    private SparkRows(int[] source, DataTypeRoot[] roots, int[] precision, int[] scale) {
        this.source = source;
        this.roots = roots;
        this.precision = precision;
        this.scale = scale;
    }

    /**
     * The table's columns of a type the writer cannot take, as "name TYPE"; empty when it takes them
     * all. Checked when the writer is made, before any micro-batch.
     */
    static List<String> unsupportedColumns(RowType table) {
        List<String> out = new ArrayList<>();
        for (DataField field : table.getFields()) {
            if (sparkType(field.type()) == null) {
                out.add(field.name() + " " + field.type());
            }
        }
        return out;
    }

    /**
     * The conversion of rows of {@code batch} into rows of {@code table}.
     *
     * @throws IllegalArgumentException naming the column when a table column is missing, a batch
     *     column is not in the table, or a type differs
     */
    static SparkRows of(StructType batch, RowType table) {
        List<DataField> fields = table.getFields();
        int[] source = new int[fields.size()];
        DataTypeRoot[] roots = new DataTypeRoot[fields.size()];
        int[] precision = new int[fields.size()];
        int[] scale = new int[fields.size()];
        boolean[] used = new boolean[batch.fields().length];
        for (int i = 0; i < fields.size(); i++) {
            DataField field = fields.get(i);
            int at = indexOf(batch, field.name());
            if (at < 0) {
                throw new IllegalArgumentException("the micro-batch has no column '" + field.name() + "' of the table; its columns: "
                        + String.join(", ", batch.fieldNames()));
            }
            StructField column = batch.fields()[at];
            org.apache.spark.sql.types.DataType expected = sparkType(field.type());
            if (!compatible(column.dataType(), expected)) {
                throw new IllegalArgumentException("column '" + field.name() + "': the micro-batch has " + column.dataType().sql()
                        + ", the table " + field.type() + " (which takes " + expected.sql() + ")");
            }
            used[at] = true;
            source[i] = at;
            roots[i] = field.type().getTypeRoot();
            if (field.type() instanceof DecimalType decimal) {
                precision[i] = decimal.getPrecision();
                scale[i] = decimal.getScale();
            }
        }
        for (int j = 0; j < used.length; j++) {
            if (!used[j]) {
                throw new IllegalArgumentException("the micro-batch column '" + batch.fields()[j].name()
                        + "' is not a column of the table (" + String.join(", ", table.getFieldNames()) + "); select the table's columns");
            }
        }
        return new SparkRows(source, roots, precision, scale);
    }

    /** {@code row} as a Paimon insert of the table's columns. */
    InternalRow toPaimon(Row row) {
        GenericRow out = new GenericRow(source.length);
        for (int i = 0; i < source.length; i++) {
            Object value = row.get(source[i]);
            out.setField(i, value == null ? null : convert(i, value));
        }
        return out;
    }

    private Object convert(int i, Object value) {
        return switch (roots[i]) {
            case CHAR, VARCHAR -> BinaryString.fromString((String) value);
            case DECIMAL -> {
                Decimal decimal = Decimal.fromBigDecimal((BigDecimal) value, precision[i], scale[i]);
                if (decimal == null) {
                    throw new IllegalArgumentException(value + " does not fit DECIMAL(" + precision[i] + ", " + scale[i] + ")");
                }
                yield decimal;
            }
            case DATE -> (int) (value instanceof LocalDate d ? d : ((Date) value).toLocalDate()).toEpochDay();
            case TIMESTAMP_WITHOUT_TIME_ZONE -> Timestamp.fromLocalDateTime((LocalDateTime) value);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> Timestamp.fromInstant(
                    value instanceof Instant instant ? instant : ((java.sql.Timestamp) value).toInstant());
            default -> value; // boolean, integral, floating point and binary values are the same Java objects
        };
    }

    /** The Spark type a column of Paimon type {@code type} takes; null when the writer does not take it. */
    static org.apache.spark.sql.types.DataType sparkType(DataType type) {
        return switch (type.getTypeRoot()) {
            case BOOLEAN -> DataTypes.BooleanType;
            case TINYINT -> DataTypes.ByteType;
            case SMALLINT -> DataTypes.ShortType;
            case INTEGER -> DataTypes.IntegerType;
            case BIGINT -> DataTypes.LongType;
            case FLOAT -> DataTypes.FloatType;
            case DOUBLE -> DataTypes.DoubleType;
            case CHAR, VARCHAR -> DataTypes.StringType;
            case BINARY, VARBINARY -> DataTypes.BinaryType;
            case DECIMAL -> DataTypes.createDecimalType(((DecimalType) type).getPrecision(), ((DecimalType) type).getScale());
            case DATE -> DataTypes.DateType;
            case TIMESTAMP_WITHOUT_TIME_ZONE -> DataTypes.TimestampNTZType;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> DataTypes.TimestampType;
            default -> null;
        };
    }

    /** Decimals of any precision are taken (a value that does not fit fails its row); other types must be equal. */
    private static boolean compatible(org.apache.spark.sql.types.DataType actual, org.apache.spark.sql.types.DataType expected) {
        if (expected instanceof org.apache.spark.sql.types.DecimalType) {
            return actual instanceof org.apache.spark.sql.types.DecimalType;
        }
        return expected.equals(actual);
    }

    private static int indexOf(StructType batch, String name) {
        String[] names = batch.fieldNames();
        for (int j = 0; j < names.length; j++) {
            if (names[j].equals(name)) {
                return j;
            }
        }
        for (int j = 0; j < names.length; j++) {
            if (names[j].equalsIgnoreCase(name)) {
                return j;
            }
        }
        return -1;
    }
}
