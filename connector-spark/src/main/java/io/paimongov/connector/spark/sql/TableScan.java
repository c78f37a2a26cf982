package io.paimongov.connector.spark.sql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import io.paimongov.connector.spark.read.GovernedTaskRead;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.RowType;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A batch read of a table through Paimon's {@code ReadBuilder}: the columns Spark asks for
 * (top-level pruning), Spark's filters as a Paimon predicate for pruning ({@link Filters}; Spark
 * still evaluates them all), one input partition per Paimon split of the latest snapshot. Each
 * split of a data table is read in its task by a governed read ({@link GovernedTaskRead}): Paimon's
 * merge-on-read, deletion vectors and append files, with the readers and merges charged to the
 * task's memory under the table's governance settings and merged in passes when they do not fit; a
 * system table's by Paimon's own read. Rows become Spark rows through {@link PaimonToCatalyst}.
 *
 * <p>The builder is used by one planning thread; the scan, its partitions and its reader factory
 * are immutable and serializable into tasks.
 */
final class TableScan implements Scan, Batch {

    private final Table table;
    private final RowType readType;
    private final int[] projection;
    private final Predicate predicate;
    private final Map<String, String> governance;

    private TableScan(Table table, int[] projection, Predicate predicate, Map<String, String> governance) {
        this.table = table;
        this.projection = projection;
        this.readType = table.rowType().project(projection);
        this.predicate = predicate;
        this.governance = governance;
    }

    /** The scan builder of {@code table}, read by Paimon's own read (a system table). */
    static ScanBuilder builder(Table table) {
        return new Builder(table, null);
    }

    /**
     * The scan builder of data table {@code table}, each split read by a governed read in its task
     * ({@link GovernedTaskRead}) with the {@code governance.*} options {@code governance}.
     */
    static ScanBuilder governed(FileStoreTable table, Map<String, String> governance) {
        return new Builder(table, new HashMap<>(governance));
    }

    @Override
    public StructType readSchema() {
        return SparkTypes.toSpark(readType);
    }

    @Override
    public String description() {
        return "GovernedPaimonScan(" + table.fullName() + ", columns=" + readType.getFieldNames()
                + (predicate == null ? "" : ", filter=" + predicate) + ")";
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    private ReadBuilder readBuilder() {
        ReadBuilder builder = table.newReadBuilder().withProjection(projection);
        return predicate == null ? builder : builder.withFilter(predicate);
    }

    @Override
    public InputPartition[] planInputPartitions() {
        List<Split> splits = readBuilder().newScan().plan().splits();
        InputPartition[] partitions = new InputPartition[splits.size()];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = new SplitPartition(splits.get(i));
        }
        return partitions;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return governance == null
                ? new SplitReaderFactory(readBuilder(), PaimonToCatalyst.of(readType))
                : new GovernedReaderFactory((FileStoreTable) table, governance, projection, predicate, PaimonToCatalyst.of(readType));
    }

    /** One Paimon split. */
    private record SplitPartition(Split split) implements InputPartition {}

    /** Reads splits in tasks with Paimon's read. */
    private record SplitReaderFactory(ReadBuilder readBuilder, PaimonToCatalyst rows) implements PartitionReaderFactory {

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            try {
                RecordReader<org.apache.paimon.data.InternalRow> reader =
                        readBuilder.newRead().createReader(((SplitPartition) partition).split());
                return new SplitReader(new RecordReaderIterator<>(reader), rows);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open a reader of " + readBuilder.tableName(), e);
            }
        }
    }

    /** Reads splits in tasks with a governed read each, on the task's memory. */
    private record GovernedReaderFactory(FileStoreTable table, Map<String, String> governance, int[] projection, Predicate predicate,
            PaimonToCatalyst rows) implements PartitionReaderFactory {

        @Override
        public PartitionReader<InternalRow> createReader(InputPartition partition) {
            try {
                return new SplitReader(new RecordReaderIterator<>(
                        GovernedTaskRead.open(table, governance, projection, predicate, ((SplitPartition) partition).split())), rows);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open a governed reader of " + table.fullName(), e);
            }
        }
    }

    /** The rows of one split; Paimon reuses its rows, so each is converted before the next is read. */
    private static final class SplitReader implements PartitionReader<InternalRow> {
        private final RecordReaderIterator<org.apache.paimon.data.InternalRow> rows;
        private final PaimonToCatalyst converter;
        private InternalRow current;

        SplitReader(RecordReaderIterator<org.apache.paimon.data.InternalRow> rows, PaimonToCatalyst converter) {
            this.rows = rows;
            this.converter = converter;
        }

        @Override
        public boolean next() {
            if (!rows.hasNext()) {
                return false;
            }
            current = converter.toSpark(rows.next());
            return true;
        }

        @Override
        public InternalRow get() {
            return current;
        }

        @Override
        public void close() throws IOException {
            try {
                rows.close();
            } catch (Exception e) {
                throw e instanceof IOException io ? io : new IOException(e);
            }
        }
    }

    private static final class Builder implements SupportsPushDownRequiredColumns, SupportsPushDownFilters {
        private final Table table;
        private final Map<String, String> governance;
        private int[] projection;
        private Filter[] pushed = new Filter[0];
        private Predicate predicate;

        Builder(Table table, Map<String, String> governance) {
            this.table = table;
            this.governance = governance;
            this.projection = IntStream.range(0, table.rowType().getFieldCount()).toArray();
        }

        @Override
        public void pruneColumns(StructType required) {
            List<String> names = table.rowType().getFieldNames();
            int[] kept = new int[required.fields().length];
            int n = 0;
            for (StructField field : required.fields()) {
                int index = names.indexOf(field.name());
                if (index >= 0) {
                    kept[n++] = index;
                }
            }
            // A count(*) asks for no column; Paimon reads at least one.
            projection = n == 0 ? new int[] {0} : Arrays.copyOf(kept, n);
        }

        /** Converts what it can; returns every filter, since Paimon's predicate only prunes. */
        @Override
        public Filter[] pushFilters(Filter[] filters) {
            Filters converter = new Filters(table.rowType());
            List<Filter> converted = new ArrayList<>();
            List<Predicate> predicates = new ArrayList<>();
            for (Filter filter : filters) {
                Optional<Predicate> p = converter.convert(filter);
                if (p.isPresent()) {
                    converted.add(filter);
                    predicates.add(p.get());
                }
            }
            pushed = converted.toArray(new Filter[0]);
            predicate = predicates.isEmpty() ? null : PredicateBuilder.and(predicates);
            return filters;
        }

        @Override
        public Filter[] pushedFilters() {
            return pushed;
        }

        @Override
        public Scan build() {
            return new TableScan(table, projection, predicate, governance);
        }
    }
}
