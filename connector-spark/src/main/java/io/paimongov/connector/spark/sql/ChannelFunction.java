package io.paimongov.connector.spark.sql;

import java.util.Arrays;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The catalog's function {@value #NAME}: the shuffle key of a row's write channel, the clustering
 * expression of every keyed write ({@link GovernedWrite#requiredDistribution}). Spark resolves the
 * transform {@code governed_write_channel(<channels>, '<schema>', <routed columns>...)} through the
 * catalog's {@code FunctionCatalog} and evaluates it before the shuffle; its first two arguments are
 * literals describing the {@link ChannelRouting}, the rest are the routed columns of the row.
 *
 * <p>The bound function is serialized into every task with the plan; it builds the routing once
 * per task (on its first row) and keeps it. <b>Thread-safety:</b> one bound instance per task
 * thread, as Spark deserializes it per task.
 */
final class ChannelFunction implements UnboundFunction {

    private static final long serialVersionUID = 1L;

    static final String NAME = "governed_write_channel";

    @Override
    public BoundFunction bind(StructType input) {
        StructField[] fields = input.fields();
        if (fields.length < ChannelRouting.LITERALS || !(fields[0].dataType() instanceof IntegerType)
                || !(fields[1].dataType() instanceof StringType)) {
            throw new UnsupportedOperationException(NAME + " takes the write's channel count (INT), its table schema (STRING)"
                    + " and the routed columns; got " + input.simpleString());
        }
        return new Bound(Arrays.stream(fields).map(StructField::dataType).toArray(DataType[]::new));
    }

    @Override
    public String description() {
        return NAME + "(channels, schema, columns...): the shuffle key of a row's write channel, for the catalog's writes";
    }

    @Override
    public String name() {
        return NAME;
    }

    private static final class Bound implements ScalarFunction<Integer> {
        private static final long serialVersionUID = 1L;

        private final DataType[] inputs;
        private transient UTF8String schema;
        private transient ChannelRouting.Router router;

        Bound(DataType[] inputs) {
            this.inputs = inputs;
        }

        @Override
        public Integer produceResult(InternalRow input) {
            UTF8String given = input.getUTF8String(1);
            if (router == null || !given.equals(schema)) {
                router = ChannelRouting.of(input.getInt(0), given.toString()).router();
                schema = given.clone();
            }
            return router.shuffleKey(input);
        }

        @Override
        public DataType[] inputTypes() {
            return inputs;
        }

        @Override
        public DataType resultType() {
            return DataTypes.IntegerType;
        }

        @Override
        public boolean isResultNullable() {
            return false;
        }

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String canonicalName() {
            return "paimongov." + NAME;
        }

        @Override
        public String toString() {
            return NAME;
        }
    }
}
