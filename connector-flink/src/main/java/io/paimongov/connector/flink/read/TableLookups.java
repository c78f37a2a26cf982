package io.paimongov.connector.flink.read;

import io.paimongov.runtime.read.GovernedFieldLookup;
import io.paimongov.runtime.read.GovernedLookup;
import io.paimongov.runtime.read.LookupSnapshot;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.util.List;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.bucket.BucketFunction;
import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.Projection;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.ProjectedRow;

/**
 * The lookups behind a {@link GovernedLookupFunction}: by the whole primary key into the table's
 * local lookup files ({@link #byPrimaryKey}), or by any fields ({@link #byFields}). A lookup's key
 * holds the join keys' values in their order; its rows hold the projected fields and stay valid
 * until the next call.
 *
 * <p>Not thread-safe: the lookup function's task thread calls it.
 */
interface TableLookups extends AutoCloseable {

    /** Takes the table's latest snapshot. */
    void refresh() throws IOException;

    /**
     * Looks up only the rows {@code partitionFilter} keeps (null: all), as a lookup join restricted
     * to some partitions; the next {@link #refresh()} takes it. Lookups by primary key need nothing:
     * their keys name their partition.
     */
    void restrict(Predicate partitionFilter);

    /** The rows of {@code key}. */
    List<InternalRow> lookup(InternalRow key) throws IOException;

    LookupSnapshot metrics();

    @Override
    void close() throws IOException;

    /** By the whole primary key: the key gives the partition and the bucket, as Paimon's partial-cache lookup computes them. */
    static TableLookups byPrimaryKey(FileStoreTable table, ResourceContext context, int[] projection, List<String> joinKeys) {
        GovernedLookup lookup = GovernedLookup.open(table, context);
        TableSchema schema = table.schema();
        List<String> primaryKeys = schema.primaryKeys();
        ProjectedRow keyToPrimaryKey = ProjectedRow.from(primaryKeys.stream().mapToInt(joinKeys::indexOf).toArray());
        ProjectedRow keyToTrimmedKey = ProjectedRow.from(schema.trimmedPrimaryKeys().stream().mapToInt(joinKeys::indexOf).toArray());
        Projection partitionOfKey = CodeGenUtils.newProjection(schema.logicalPrimaryKeysType(),
                schema.partitionKeys().stream().mapToInt(primaryKeys::indexOf).toArray());
        Projection bucketKeyOfKey = CodeGenUtils.newProjection(schema.logicalPrimaryKeysType(),
                schema.bucketKeys().stream().mapToInt(primaryKeys::indexOf).toArray());
        BucketFunction bucketFunction = BucketFunction.create(new CoreOptions(schema.options()), schema.logicalBucketKeyType());
        ProjectedRow output = ProjectedRow.from(projection);
        return new TableLookups() {
            @Override
            public void refresh() throws IOException {
                lookup.refresh();
            }

            @Override
            public void restrict(Predicate partitionFilter) {
                // A key names its partition, and lookup files are built only for partitions looked up.
            }

            @Override
            public List<InternalRow> lookup(InternalRow key) throws IOException {
                InternalRow primaryKey = keyToPrimaryKey.replaceRow(key);
                BinaryRow partition = partitionOfKey.apply(primaryKey);
                Integer buckets = lookup.buckets(partition);
                if (buckets == null) {
                    return List.of();
                }
                int bucket = bucketFunction.bucket(bucketKeyOfKey.apply(primaryKey), buckets);
                InternalRow row = lookup.lookup(partition, bucket, keyToTrimmedKey.replaceRow(key));
                return row == null ? List.of() : List.of(output.replaceRow(row));
            }

            @Override
            public LookupSnapshot metrics() {
                return lookup.metrics();
            }

            @Override
            public void close() throws IOException {
                lookup.close();
            }
        };
    }

    /** By any fields: the rows of each key cached within the budget ({@link GovernedFieldLookup}). */
    static TableLookups byFields(FileStoreTable table, ResourceContext context, int[] projection, List<String> joinKeys) {
        List<String> names = table.rowType().getFieldNames();
        GovernedFieldLookup lookup = GovernedFieldLookup.open(table, context, projection, joinKeys.stream().mapToInt(names::indexOf).toArray());
        return new TableLookups() {
            @Override
            public void refresh() throws IOException {
                lookup.refresh();
            }

            @Override
            public void restrict(Predicate partitionFilter) {
                lookup.restrict(partitionFilter);
            }

            @Override
            public List<InternalRow> lookup(InternalRow key) throws IOException {
                return lookup.lookup(key);
            }

            @Override
            public LookupSnapshot metrics() {
                return lookup.metrics();
            }

            @Override
            public void close() {
                lookup.close();
            }
        };
    }
}
