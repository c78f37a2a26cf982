package io.paimongov.connector.spark.sql;

import io.paimongov.connector.spark.write.GovernedStreamingWriter;
import io.paimongov.runtime.write.TableMode;
import io.paimongov.spark.SparkWriteAccumulators;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataField;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsOverwrite;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.sources.AlwaysTrue;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Builds the {@link GovernedWrite} of one statement: an append ({@code INSERT INTO}, {@code
 * writeTo(..).append()}, a micro-batch), an overwrite by a static partition spec ({@code INSERT
 * OVERWRITE t PARTITION (d = 'x')}; the whole table for {@code INSERT OVERWRITE t} and {@code
 * TRUNCATE}-like overwrites), or a dynamic partition overwrite ({@code INSERT OVERWRITE} with {@code
 * spark.sql.sources.partitionOverwriteMode=dynamic}, {@code writeTo(..).overwritePartitions()}).
 *
 * <p>Everything that can fail is checked here, on the driver, before any task runs: the settings
 * ({@link GovernanceSettings}: catalog, table and write options merged, a bad key named), the table
 * mode ({@code UnsupportedTableModeException} for a mode the governed write cannot run), the columns
 * Spark aligned to the table, and the overwrite filter (equalities on partition columns only).
 *
 * <p>Used by one planning thread.
 */
final class GovernedWriteBuilder implements SupportsOverwrite, SupportsDynamicOverwrite {

    private final FileStoreTable table;
    private final Map<String, String> catalogDefaults;
    private final LogicalWriteInfo info;
    private GovernedWrite.Overwrite overwrite;

    GovernedWriteBuilder(FileStoreTable table, Map<String, String> catalogDefaults, LogicalWriteInfo info) {
        this.table = table;
        this.catalogDefaults = catalogDefaults;
        this.info = info;
    }

    /** Overwrites the partitions {@code filters} name by equality, or the whole table for {@code AlwaysTrue}. */
    @Override
    public WriteBuilder overwrite(Filter[] filters) {
        Map<String, String> partition = new LinkedHashMap<>();
        for (Filter filter : filters) {
            addEqualities(filter, partition);
        }
        overwrite = new GovernedWrite.Overwrite(partition, false);
        return this;
    }

    private void addEqualities(Filter filter, Map<String, String> partition) {
        if (filter instanceof AlwaysTrue) {
            return;
        }
        if (filter instanceof And and) {
            addEqualities(and.left(), partition);
            addEqualities(and.right(), partition);
            return;
        }
        if (filter instanceof EqualTo eq && table.partitionKeys().contains(eq.attribute())) {
            partition.put(eq.attribute(), partitionValue(eq.value()));
            return;
        }
        if (filter instanceof EqualNullSafe eq && table.partitionKeys().contains(eq.attribute())) {
            partition.put(eq.attribute(), partitionValue(eq.value()));
            return;
        }
        throw new IllegalArgumentException("cannot overwrite " + table.fullName() + " where " + filter + ": an overwrite of a"
                + " Paimon table names partitions by equality on its partition columns " + table.partitionKeys());
    }

    /** A partition value as Paimon's overwrite spec takes it: its string form, null as the table's default partition name. */
    private String partitionValue(Object value) {
        if (value == null) {
            return table.coreOptions().partitionDefaultName();
        }
        return value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString();
    }

    @Override
    public WriteBuilder overwriteDynamicPartitions() {
        overwrite = new GovernedWrite.Overwrite(Map.of(), true);
        return this;
    }

    @Override
    public Write build() {
        GovernanceSettings settings =
                GovernanceSettings.merge(catalogDefaults, table.options(), info.options().asCaseSensitiveMap());
        TableMode.of(table);
        if (overwrite != null && table.bucketMode() == BucketMode.KEY_DYNAMIC) {
            throw new IllegalArgumentException("cannot overwrite " + table.fullName() + ": it is a cross-partition update table"
                    + " (primary key " + table.primaryKeys() + " without every partition field " + table.partitionKeys()
                    + "); a key of the overwritten partitions may live in a partition the overwrite keeps, and the governed"
                    + " write does not decide which copy wins; delete the partitions and insert instead");
        }
        checkColumns(info.schema());
        SparkSession spark = SparkSession.active();
        int channels = settings.channels() > 0 ? settings.channels() : spark.sessionState().conf().numShufflePartitions();
        // Spark builds a write per statement and per micro-batch: one set of accumulators each.
        SparkWriteAccumulators accumulators = SparkWriteAccumulators.register(spark.sparkContext());
        // A micro-batch's write has its streaming query's id (a batch write a random one), which Spark
        // sets as a local property of the query's thread, where micro-batches are planned.
        boolean microBatch = info.queryId().equals(spark.sparkContext().getLocalProperty(GovernedStreamingWriter.QUERY_ID_PROPERTY));
        return new GovernedWrite(table, settings, channels, overwrite, info.queryId(), accumulators, microBatch);
    }

    /** Spark aligns a write's columns to the table's (by position or name); anything else is a bug to stop here. */
    private void checkColumns(StructType written) {
        List<DataField> fields = table.rowType().getFields();
        StructField[] given = written.fields();
        if (given.length != fields.size()) {
            throw new IllegalArgumentException("the write to " + table.fullName() + " has " + given.length + " columns ("
                    + String.join(", ", written.fieldNames()) + "), the table " + fields.size() + " (" + String.join(", ",
                    table.rowType().getFieldNames()) + ")");
        }
        for (int i = 0; i < given.length; i++) {
            String column = fields.get(i).name();
            org.apache.spark.sql.types.DataType expected = SparkTypes.toSpark(column, fields.get(i).type());
            if (!SparkTypes.writable(given[i].dataType(), expected)) {
                throw new IllegalArgumentException("column '" + column + "' of the write to " + table.fullName() + " is "
                        + given[i].dataType().sql() + ", the table's is " + expected.sql());
            }
        }
    }
}
