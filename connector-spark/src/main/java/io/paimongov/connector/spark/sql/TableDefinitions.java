package io.paimongov.connector.spark.sql;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.IdentityTransform;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Spark DDL as Paimon schemas and schema changes, the way Paimon's own Spark catalog reads it, so a
 * Paimon user's {@code CREATE TABLE} runs unchanged: {@code PARTITIONED BY (col, ...)}; {@code
 * TBLPROPERTIES ('primary-key' = 'k1,k2', 'bucket' = '4', ...)}, every property but the reserved
 * ones being a Paimon table option ({@code bucket-key}, {@code deletion-vectors.enabled}, {@code
 * changelog-producer}, {@code merge-engine}, ..., and {@code governance.*}, checked here); {@code
 * USING paimon} or no {@code USING}; {@code COMMENT}; {@code LOCATION} as Paimon's {@code path}.
 *
 * <p>Stateless; thread-safe.
 */
final class TableDefinitions {

    /** The property Paimon's Spark catalog takes the primary key from. */
    static final String PRIMARY_KEY = "primary-key";

    /** Spark's bookkeeping properties that mean nothing to Paimon. */
    private static final List<String> DROPPED = List.of(TableCatalog.PROP_OWNER, TableCatalog.PROP_EXTERNAL,
            TableCatalog.PROP_IS_MANAGED_LOCATION);

    private TableDefinitions() {}

    /**
     * The Paimon schema of {@code CREATE TABLE}.
     *
     * @throws IllegalArgumentException for another provider than {@code paimon}, a partition transform
     *     other than a column, a column type {@link SparkTypes} does not convert or a bad {@code
     *     governance.*} property, each named
     */
    static Schema schema(StructType columns, Transform[] partitions, Map<String, String> properties) {
        String provider = properties.get(TableCatalog.PROP_PROVIDER);
        if (provider != null && !provider.equalsIgnoreCase("paimon")) {
            throw new IllegalArgumentException("USING " + provider + ": the governed catalog makes Paimon tables (USING paimon,"
                    + " or no USING)");
        }
        Map<String, String> options = new HashMap<>(properties);
        options.remove(TableCatalog.PROP_PROVIDER);
        options.remove(TableCatalog.PROP_COMMENT);
        options.remove(PRIMARY_KEY);
        DROPPED.forEach(options::remove);
        String location = options.remove(TableCatalog.PROP_LOCATION);
        if (location != null) {
            options.put(CoreOptions.PATH.key(), location);
        }
        GovernanceSettings.check(options);
        Schema.Builder schema = Schema.newBuilder()
                .options(options)
                .partitionKeys(partitionColumns(partitions))
                .primaryKey(primaryKey(properties.get(PRIMARY_KEY)))
                .comment(properties.get(TableCatalog.PROP_COMMENT));
        for (StructField field : columns.fields()) {
            schema.column(field.name(), SparkTypes.toPaimon(field.name(), field.dataType(), field.nullable(), field.metadata()),
                    field.getComment().isDefined() ? field.getComment().get() : null);
        }
        return schema.build();
    }

    private static List<String> primaryKey(String property) {
        if (property == null || property.isBlank()) {
            return List.of();
        }
        return Arrays.stream(property.split(",")).map(String::trim).toList();
    }

    private static List<String> partitionColumns(Transform[] partitions) {
        List<String> columns = new ArrayList<>();
        for (Transform transform : partitions) {
            if (!(transform instanceof IdentityTransform identity) || identity.ref().fieldNames().length != 1) {
                throw new IllegalArgumentException("PARTITIONED BY " + transform.describe() + ": a Paimon table is partitioned by"
                        + " columns; for buckets set TBLPROPERTIES ('bucket' = 'N', 'bucket-key' = 'col')");
            }
            columns.add(identity.ref().fieldNames()[0]);
        }
        return columns;
    }

    /**
     * The Paimon change of an {@code ALTER TABLE} change.
     *
     * @throws UnsupportedOperationException for a change Paimon's catalog does not make, named
     * @throws IllegalArgumentException for a bad {@code governance.*} property or column type, named
     */
    static SchemaChange change(TableChange change) {
        if (change instanceof TableChange.SetProperty set) {
            if (set.property().equals(TableCatalog.PROP_COMMENT)) {
                return SchemaChange.updateComment(set.value());
            }
            GovernanceSettings.check(Map.of(set.property(), set.value()));
            return SchemaChange.setOption(set.property(), set.value());
        }
        if (change instanceof TableChange.RemoveProperty remove) {
            return remove.property().equals(TableCatalog.PROP_COMMENT)
                    ? SchemaChange.updateComment(null)
                    : SchemaChange.removeOption(remove.property());
        }
        if (change instanceof TableChange.AddColumn add) {
            String name = String.join(".", add.fieldNames());
            return SchemaChange.addColumn(add.fieldNames(), SparkTypes.toPaimon(name, add.dataType(), add.isNullable(), null),
                    add.comment(), move(add.position(), add.fieldNames()));
        }
        if (change instanceof TableChange.RenameColumn rename) {
            return SchemaChange.renameColumn(rename.fieldNames(), rename.newName());
        }
        if (change instanceof TableChange.DeleteColumn delete) {
            return SchemaChange.dropColumn(delete.fieldNames());
        }
        if (change instanceof TableChange.UpdateColumnType update) {
            String name = String.join(".", update.fieldNames());
            return SchemaChange.updateColumnType(update.fieldNames(), SparkTypes.toPaimon(name, update.newDataType(), true, null), true);
        }
        if (change instanceof TableChange.UpdateColumnNullability update) {
            return SchemaChange.updateColumnNullability(update.fieldNames(), update.nullable());
        }
        if (change instanceof TableChange.UpdateColumnComment update) {
            return SchemaChange.updateColumnComment(update.fieldNames(), update.newComment());
        }
        if (change instanceof TableChange.UpdateColumnPosition update) {
            return SchemaChange.updateColumnPosition(move(update.position(), update.fieldNames()));
        }
        throw new UnsupportedOperationException("ALTER TABLE: " + change.getClass().getSimpleName().toLowerCase(Locale.ROOT)
                + " is not a change the governed catalog makes");
    }

    private static SchemaChange.Move move(TableChange.ColumnPosition position, String[] fieldNames) {
        if (position instanceof TableChange.First) {
            return SchemaChange.Move.first(fieldNames[fieldNames.length - 1]);
        }
        if (position instanceof TableChange.After after) {
            return SchemaChange.Move.after(fieldNames[fieldNames.length - 1], after.column());
        }
        return null;
    }
}
