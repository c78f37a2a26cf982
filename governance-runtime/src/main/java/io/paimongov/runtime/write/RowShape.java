package io.paimongov.runtime.write;

import java.util.List;
import java.util.Objects;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

/**
 * Checks that a row fits a table's row type before it reaches Paimon, whose own failures for a
 * mismatched row are an {@code ArrayIndexOutOfBoundsException}, a {@code ClassCastException} or,
 * for a row with extra fields, nothing at all (the extra fields are dropped silently). The error
 * names the field, its type and what the row holds.
 *
 * <p>What is checked: the arity ({@link InternalRow#getFieldCount()}); null in a {@code NOT NULL}
 * field (primary-key and partition fields are {@code NOT NULL} in Paimon); and, for a {@link
 * GenericRow}, the Java class of each value against the field's type. A {@link BinaryRow} carries no
 * types, so only its arity and nulls are checked. Nested rows, arrays and maps are checked as
 * values of their container type, not element by element.
 *
 * <p>Immutable; thread-safe. {@link #check} does not allocate for valid rows.
 */
final class RowShape {

    private final String table;
    private final List<DataField> fields;
    /** Per field: the class a {@link GenericRow} must hold there, or null when any value goes. */
    private final Class<?>[] expected;
    /** Per field: whether it may hold null. */
    private final boolean[] nullable;

    private RowShape(String table, RowType rowType) {
        this.table = table;
        this.fields = rowType.getFields();
        this.expected = new Class<?>[fields.size()];
        this.nullable = new boolean[fields.size()];
        for (int i = 0; i < fields.size(); i++) {
            expected[i] = javaClass(fields.get(i));
            nullable[i] = fields.get(i).type().isNullable();
        }
    }

    /** The shape of rows of {@code table} (its name is only used in messages). */
    static RowShape of(String table, RowType rowType) {
        return new RowShape(Objects.requireNonNull(table, "table"), Objects.requireNonNull(rowType, "rowType"));
    }

    /**
     * @throws IllegalArgumentException naming the field and what is wrong when {@code row} does not
     *     fit; {@link NullPointerException} for a null row
     */
    void check(InternalRow row) {
        if (row == null) {
            throw new NullPointerException("row is null; table '" + table + "' takes rows of " + describe());
        }
        if (row.getFieldCount() != fields.size()) {
            throw new IllegalArgumentException(
                    "row has " + row.getFieldCount() + " fields; table '" + table + "' has " + fields.size() + ": "
                            + describe());
        }
        if (row instanceof GenericRow generic) {
            checkGeneric(generic);
            return;
        }
        for (int i = 0; i < expected.length; i++) {
            if (!nullable[i] && row.isNullAt(i)) {
                throw nullField(i);
            }
        }
    }

    /** A {@link GenericRow}'s fields are objects: each is checked for null and for its class. */
    private void checkGeneric(GenericRow generic) {
        for (int i = 0; i < expected.length; i++) {
            Object value = generic.getField(i);
            if (value == null) {
                if (!nullable[i]) {
                    throw nullField(i);
                }
            } else if (expected[i] != null && value.getClass() != expected[i] && !expected[i].isInstance(value)) {
                DataField field = fields.get(i);
                throw new IllegalArgumentException(
                        "field '" + field.name() + "' (" + field.type() + ") of table '" + table + "' holds a "
                                + value.getClass().getName() + "; a " + expected[i].getName() + " is expected");
            }
        }
    }

    private IllegalArgumentException nullField(int i) {
        DataField field = fields.get(i);
        return new IllegalArgumentException("field '" + field.name() + "' (" + field.type() + ") of table '" + table + "' is null");
    }

    /** The class Paimon's internal data structures use for a field of this type. */
    private static Class<?> javaClass(DataField field) {
        return switch (field.type().getTypeRoot()) {
            case CHAR, VARCHAR -> BinaryString.class;
            case BOOLEAN -> Boolean.class;
            case BINARY, VARBINARY -> byte[].class;
            case DECIMAL -> Decimal.class;
            case TINYINT -> Byte.class;
            case SMALLINT -> Short.class;
            case INTEGER, DATE, TIME_WITHOUT_TIME_ZONE -> Integer.class;
            case BIGINT -> Long.class;
            case FLOAT -> Float.class;
            case DOUBLE -> Double.class;
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> Timestamp.class;
            case ARRAY -> InternalArray.class;
            case MAP, MULTISET -> InternalMap.class;
            case ROW -> InternalRow.class;
            default -> null;
        };
    }

    private String describe() {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < fields.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(fields.get(i).name()).append(' ').append(fields.get(i).type());
        }
        return sb.append(')').toString();
    }

    @Override
    public String toString() {
        return "RowShape[" + table + " " + describe() + "]";
    }
}
