package io.paimongov.runtime.write;

import java.lang.reflect.Field;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.table.sink.TableWriteImpl;

/**
 * The partition and bucket of each row, extracted once for the write path and for Paimon's write.
 *
 * <p>Why: the write path needs a row's partition and bucket before it hands the row over (to admit
 * its writer), and Paimon's {@code TableWriteImpl.write(row, bucket)} then extracts the partition
 * again: its extractor's {@code setRecord} forgets what it computed. On an 8-writer Avro append
 * table that second projection was about a fifth of the governed write's own time per row
 * (docs/performance.md). This wraps the write's extractor: {@link #look} sets the row on Paimon's
 * extractor, and the {@code setRecord} with that same row that Paimon's write makes next keeps the
 * partition (and key) already computed. Any other call of {@code setRecord} is passed on, so a row
 * object the caller reuses between write calls is looked at afresh each time.
 *
 * <p>Installed into the write's {@code TableWriteImpl} by reflection ({@link #install}), before
 * the first row; {@code RowKeysTest} checks it against the Paimon on the class path.
 *
 * <p><b>Thread-safety:</b> the writing thread only, inside a write call, as Paimon's extractor.
 */
final class RowKeys implements KeyAndBucketExtractor<InternalRow> {

    private static final Field EXTRACTOR =
            PaimonFields.field(TableWriteImpl.class, "keyAndBucketExtractor", "the governed write's partition extraction");

    private final KeyAndBucketExtractor<InternalRow> paimon;
    /** The row {@link #look} set, until the next {@link #setRecord}. */
    private InternalRow looked;

    private RowKeys(KeyAndBucketExtractor<InternalRow> paimon) {
        this.paimon = paimon;
    }

    /**
     * Wraps {@code write}'s extractor, once; returns the wrapper.
     *
     * @throws IllegalStateException when this Paimon's write keeps its extractor elsewhere
     */
    @SuppressWarnings("unchecked")
    static RowKeys install(TableWriteImpl<?> write) {
        try {
            Object current = EXTRACTOR.get(write);
            if (current instanceof RowKeys keys) {
                return keys;
            }
            RowKeys keys = new RowKeys((KeyAndBucketExtractor<InternalRow>) current);
            EXTRACTOR.set(write, keys);
            return keys;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot reach the key extractor of Paimon's TableWriteImpl", e);
        }
    }

    /** Sets {@code row} as the row whose partition, bucket and key are asked for next, Paimon's next look included. */
    void look(InternalRow row) {
        paimon.setRecord(row);
        looked = row;
    }

    @Override
    public void setRecord(InternalRow row) {
        if (row != looked) {
            paimon.setRecord(row);
        }
        looked = null;
    }

    @Override
    public BinaryRow partition() {
        return paimon.partition();
    }

    @Override
    public int bucket() {
        return paimon.bucket();
    }

    @Override
    public BinaryRow trimmedPrimaryKey() {
        return paimon.trimmedPrimaryKey();
    }
}
