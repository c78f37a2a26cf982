package io.paimongov.connector.spark.sql;

import io.paimongov.runtime.write.WriteChannels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;

/**
 * How a task computes the shuffle key of a row's write channel: the table's {@link WriteChannels}
 * over the columns its routers read (partition fields, primary key, bucket key).
 *
 * <p>The driver writes the channel function's arguments ({@link #arguments}): the channel count and
 * the table's schema (Paimon's own JSON, the form Paimon keeps schemas in), as literals, then the
 * routed columns. A task rebuilds the same {@link WriteChannels} from them, without loading
 * anything: routing depends on the schema alone (bucket mode, keys, bucket options), and a write
 * routes with the schema it was planned with even if the table changes meanwhile.
 *
 * <p>A row's shuffle key is not its channel but a number whose Spark hash partition is the channel:
 * Spark places a key in partition {@code pmod(murmur3(key, 42), n)} ({@code HashPartitioning}), and
 * {@link #shuffleKeys} picks, for each channel {@code c}, the smallest key that lands in partition
 * {@code c}. So with the write's {@code requiredNumPartitions} equal to the channel count, write
 * task {@code c} gets exactly channel {@code c}. Should Spark hash otherwise, every row of a channel
 * still reaches one task (the key is a function of the channel); only the spread differs.
 *
 * <p>Immutable; {@link #router()} makes the per-task part, which one thread uses.
 */
final class ChannelRouting {

    /** Spark's seed in {@code HashPartitioning}'s {@code Murmur3Hash}. */
    private static final int SPARK_HASH_SEED = 42;
    /** Arguments before the routed columns: the channel count and the schema. */
    static final int LITERALS = 2;

    private final WriteChannels channels;
    private final int arity;
    private final int[] fields;
    private final CatalystToPaimon.Getter[] getters;

    private ChannelRouting(TableSchema schema, int count) {
        // The channels depend on the schema only; the table object is the form WriteChannels takes,
        // made without touching its files.
        Path location = new Path(schema.options().getOrDefault(CoreOptions.PATH.key(), "/governed-write-channel/db.db/table"));
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), location, schema);
        this.channels = WriteChannels.of(table, count);
        RowType row = schema.logicalRowType();
        this.arity = row.getFieldCount();
        this.fields = routedFields(schema);
        this.getters = new CatalystToPaimon.Getter[fields.length];
        for (int i = 0; i < fields.length; i++) {
            getters[i] = CatalystToPaimon.getter(row.getTypeAt(fields[i]));
        }
    }

    /**
     * The arguments of the channel function for a write of {@code table} over {@code channels}: the
     * channel count, the schema, then the routed columns in table order.
     */
    static Expression[] arguments(FileStoreTable table, WriteChannels channels) {
        List<Expression> arguments = new ArrayList<>();
        arguments.add(Expressions.literal(channels.count()));
        arguments.add(Expressions.literal(JsonSerdeUtil.toFlatJson(table.schema())));
        List<String> names = table.rowType().getFieldNames();
        for (int field : routedFields(table.schema())) {
            arguments.add(Expressions.column("`" + names.get(field).replace("`", "``") + "`"));
        }
        return arguments.toArray(new Expression[0]);
    }

    /** The routing the arguments {@link #arguments} made describe. */
    static ChannelRouting of(int count, String schemaJson) {
        return new ChannelRouting(TableSchema.fromJson(schemaJson), count);
    }

    private static int[] routedFields(TableSchema schema) {
        Set<String> names = new LinkedHashSet<>(schema.partitionKeys());
        names.addAll(schema.primaryKeys());
        names.addAll(schema.bucketKeys());
        List<String> all = schema.fieldNames();
        return names.stream().mapToInt(all::indexOf).sorted().toArray();
    }

    /** A router for one task. */
    Router router() {
        return new Router();
    }

    /** Shuffle keys of a task: one thread. */
    final class Router {
        private final WriteChannels.Router router = channels.router();
        private final int[] keys = shuffleKeys(channels.count());

        /** The shuffle key of the row whose routed columns follow the literals in {@code args}. */
        int shuffleKey(InternalRow args) {
            GenericRow row = new GenericRow(arity);
            for (int i = 0; i < fields.length; i++) {
                int at = LITERALS + i;
                row.setField(fields[i], args.isNullAt(at) ? null : getters[i].get(args, at));
            }
            return keys[router.channel(row)];
        }
    }

    /** For each partition {@code c} of {@code n}, the smallest non-negative int Spark's hash partitioning puts there. */
    static int[] shuffleKeys(int n) {
        int[] keys = new int[n];
        Arrays.fill(keys, -1);
        int found = 0;
        for (int key = 0; found < n; key++) {
            int partition = Math.floorMod(Murmur3_x86_32.hashInt(key, SPARK_HASH_SEED), n);
            if (keys[partition] < 0) {
                keys[partition] = key;
                found++;
            }
        }
        return keys;
    }
}
