package io.paimongov.runtime.write;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.RowType;

/**
 * A row's size in Paimon's binary row format (what {@code inputBytes} counts), without serializing
 * the row where its layout is known: a {@link BinaryRow} knows its size; a {@link GenericRow} of
 * fixed-width values, strings, binaries, decimals and timestamps is sized from {@link
 * BinaryRow#calculateFixPartSizeInBytes} plus each string or binary longer than {@value
 * BinaryRow#MAX_FIX_PART_DATA_SIZE} bytes rounded up to 8, and 16 bytes for every field of a decimal
 * type that is not compact (precision above 18), 8 for every timestamp type of precision above 3,
 * null or not (Paimon's writer reserves that space for a null too). Any other value (nested rows,
 * arrays, maps) and any other row class is converted with the table's serializer, as before: the
 * answer is the same, only slower.
 *
 * <p>Not thread-safe (the serializer reuses its buffer): one per write, called on the writing
 * thread inside a write call.
 */
final class RowSize {

    private final InternalRowSerializer serializer;
    private final int arity;
    private final long fixedPart;
    /** Per field: variable-part bytes its type always takes (non-compact decimals and timestamps). */
    private final long[] typeBytes;

    RowSize(RowType rowType) {
        this.serializer = new InternalRowSerializer(rowType);
        this.arity = rowType.getFieldCount();
        this.fixedPart = BinaryRow.calculateFixPartSizeInBytes(arity);
        this.typeBytes = new long[arity];
        for (int i = 0; i < arity; i++) {
            DataType type = rowType.getTypeAt(i);
            typeBytes[i] = switch (type.getTypeRoot()) {
                case DECIMAL -> Decimal.isCompact(DataTypeChecks.getPrecision(type)) ? 0 : 16;
                case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
                        Timestamp.isCompact(DataTypeChecks.getPrecision(type)) ? 0 : 8;
                default -> 0;
            };
        }
    }

    /** The size of {@code row} in bytes once written as a {@link BinaryRow} (exact). */
    long of(InternalRow row) {
        if (row instanceof BinaryRow binary) {
            return binary.getSizeInBytes();
        }
        if (row instanceof GenericRow generic && generic.getFieldCount() == arity) {
            long size = fixedPart;
            for (int i = 0; i < arity; i++) {
                Object value = generic.getField(i);
                if (value instanceof BinaryString string) {
                    size += variableBytes(string.getSizeInBytes());
                } else if (value instanceof byte[] bytes) {
                    size += variableBytes(bytes.length);
                } else if (value == null || value instanceof Number || value instanceof Boolean
                        || value instanceof Decimal || value instanceof Timestamp) {
                    size += typeBytes[i];
                } else {
                    return serializer.toBinaryRow(row).getSizeInBytes();
                }
            }
            return size;
        }
        return serializer.toBinaryRow(row).getSizeInBytes();
    }

    private static long variableBytes(int length) {
        return length <= BinaryRow.MAX_FIX_PART_DATA_SIZE ? 0 : ((length + 7L) & ~7L);
    }
}
