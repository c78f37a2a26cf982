package io.paimongov.connector.spark.sql;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Paimon table as Spark sees it through the catalog: its columns ({@link SparkTypes}), its
 * partition columns as identity transforms, its options as properties (with {@code primary-key}
 * and {@code provider = paimon}), and, for a data table, governed reads through {@link TableScan}
 * and governed writes through {@link GovernedWriteBuilder}. A system table ({@code t$snapshots}, ...) is read
 * only.
 *
 * <p>Immutable apart from what Paimon's table caches; used on the driver.
 */
final class GovernedTable implements SupportsRead, SupportsWrite {

    private final Table table;
    private final Map<String, String> catalogDefaults;
    private final StructType schema;

    GovernedTable(Table table, Map<String, String> catalogDefaults) {
        this.table = table;
        this.catalogDefaults = catalogDefaults;
        this.schema = SparkTypes.toSpark(table.rowType());
    }

    /** The Paimon table. */
    Table paimon() {
        return table;
    }

    @Override
    public String name() {
        return table.fullName();
    }

    @Override
    @SuppressWarnings("deprecation") // Spark 4 still reads columns through schema() by default
    public StructType schema() {
        return schema;
    }

    @Override
    public Transform[] partitioning() {
        return table.partitionKeys().stream().map(Expressions::identity).toArray(Transform[]::new);
    }

    @Override
    public Map<String, String> properties() {
        Map<String, String> properties = new HashMap<>(table.options());
        properties.put(TableCatalog.PROP_PROVIDER, "paimon");
        if (!table.primaryKeys().isEmpty()) {
            properties.put(TableDefinitions.PRIMARY_KEY, String.join(",", table.primaryKeys()));
        }
        table.comment().ifPresent(comment -> properties.put(TableCatalog.PROP_COMMENT, comment));
        return properties;
    }

    @Override
    public Set<TableCapability> capabilities() {
        if (!(table instanceof FileStoreTable data)) {
            return EnumSet.of(TableCapability.BATCH_READ);
        }
        Set<TableCapability> capabilities = EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE,
                TableCapability.STREAMING_WRITE, TableCapability.TRUNCATE, TableCapability.OVERWRITE_BY_FILTER,
                TableCapability.OVERWRITE_DYNAMIC);
        if (GovernedWrite.needsAssigners(data)) {
            // Appends and overwrites by filter then reach GovernedWrite.toInsertableRelation.
            capabilities.add(TableCapability.V1_BATCH_WRITE);
        }
        return capabilities;
    }

    /**
     * @throws IllegalArgumentException naming a bad {@code governance.*} key of the catalog, the
     *     table or the read's options
     */
    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        if (!(table instanceof FileStoreTable data)) {
            return TableScan.builder(table);
        }
        return TableScan.governed(data, GovernanceSettings.merge(catalogDefaults, table.options(), options.asCaseSensitiveMap()).governance());
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        if (!(table instanceof FileStoreTable data)) {
            throw new UnsupportedOperationException(table.fullName() + " is read only");
        }
        return new GovernedWriteBuilder(data, catalogDefaults, info);
    }
}
