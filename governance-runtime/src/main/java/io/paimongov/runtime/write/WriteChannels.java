package io.paimongov.runtime.write;

import java.io.Serializable;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.ChannelComputer;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.table.sink.PartitionKeyExtractor;
import org.apache.paimon.table.sink.PostponeBucketRowKeyExtractor;
import org.apache.paimon.table.sink.RowPartitionAllPrimaryKeyExtractor;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;

/**
 * How an engine spreads the rows of one table write over its writer channels (Flink writer
 * subtasks, Spark write tasks), each channel running one {@link GovernedTableWrite}, so that every
 * (partition, bucket) is written by one channel only, as Paimon's own connectors spread them: two
 * writers of one primary-key bucket would number their rows from the same sequence, and two writers
 * of one dynamic bucket would each replace its key index with half of it.
 *
 * <p>Per bucket mode, what the engine does (channel values in {@code [0, count())}):
 *
 * <ul>
 *   <li>fixed buckets: routes each row by {@link Router#channel} = {@code
 *       ChannelComputer.select(partition, bucket, count)}, the bucket from the table's own bucket
 *       function (Paimon's writer shuffle);
 *   <li>postpone bucket ({@code bucket = -2}): routes by {@link Router#channel} = {@code
 *       |(partitionHash + keyHash) % count|}, as Paimon's postpone sink;
 *   <li>bucket-unaware append: any channel ({@link #keyed()} is false);
 *   <li>dynamic buckets and cross-partition update ({@link #assigned()}): two stages, as Paimon's
 *       sinks. First the rows are routed by {@link Router#channel} to an assigner ({@link
 *       GovernedAssigner}): for dynamic buckets {@code BucketAssigner.computeAssigner(partitionHash,
 *       keyHash, count, assigners)}, for cross-partition update {@code |hash(primary key) %
 *       assigners|}, with {@link #assigners()} from {@code dynamic-bucket.initial-buckets} (and
 *       {@code dynamic-bucket.assigner-parallelism}) capped at {@code count}, all channels when unset.
 *       The assigner gives each row its bucket (and, for a key that moved partitions, the retraction
 *       of its old row); then the rows are routed by {@link #writerChannel} ({@code
 *       ChannelComputer.select(partition, bucket, count)}) to the writers, which take them with
 *       {@link GovernedTableWrite#write(InternalRow, int)}. Tables written by Paimon's own connectors
 *       with any parallelism and tables written this way are interchangeable: each stage finds what
 *       the other wrote through the table's index, not through where it was written.
 * </ul>
 *
 * <p>One channel ({@link #single}) needs no stage, unless the engine asks for it ({@link
 * #withAssignerStage}): the one write gets every row and assigns buckets itself. A channel may receive the rows of several channel values (an engine that maps
 * {@code count} values onto fewer tasks): its write or assigner then serves each of them. What must
 * hold is that all rows of one value reach one write or assigner.
 *
 * <p>Immutable, serializable (Flink ships it to the tasks); {@link #router()} makes the
 * per-thread part.
 */
public final class WriteChannels implements Serializable {

    private static final long serialVersionUID = 1L;

    private final TableSchema schema;
    private final BucketMode mode;
    private final int count;
    private final int assigners;
    /** Whether the assigner stage runs with one channel too ({@link #withAssignerStage}). */
    private final boolean stagedAlways;

    private WriteChannels(TableSchema schema, BucketMode mode, int count, int assigners, boolean stagedAlways) {
        this.schema = schema;
        this.mode = mode;
        this.count = count;
        this.assigners = assigners;
        this.stagedAlways = stagedAlways;
    }

    /**
     * The channels of a write of {@code table} over {@code count} writers.
     *
     * @throws IllegalArgumentException when {@code count} is below 1, naming it
     */
    public static WriteChannels of(FileStoreTable table, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a write needs at least one channel (writer); got " + count);
        }
        BucketMode mode = table.bucketMode();
        return new WriteChannels(table.schema(), mode, count, assignersOf(table.coreOptions(), mode, count), false);
    }

    /**
     * These channels with the assigner stage whatever their count: an engine whose job may run again
     * with one writer or with several (a Flink job restored with another parallelism) keeps the same
     * operators, and the state the assigners keep, at every count. Without it one channel needs no
     * stage ({@link #assignerStage()}).
     */
    public WriteChannels withAssignerStage() {
        return new WriteChannels(schema, mode, count, assigners, true);
    }

    /** One channel: one write gets every row (a write outside an engine, a job of parallelism 1). */
    public static WriteChannels single(FileStoreTable table) {
        return of(table, 1);
    }

    /**
     * Paimon's assigner count: for dynamic buckets {@code dynamic-bucket.initial-buckets} capped at
     * the channels ({@code HashBucketAssignerOperator}); for cross-partition update the larger of
     * that and {@code dynamic-bucket.assigner-parallelism}, else the channels ({@code
     * GlobalDynamicBucketSink}), capped at the channels because here the assigners run in the
     * writers.
     */
    private static int assignersOf(CoreOptions options, BucketMode mode, int count) {
        Integer initial = options.dynamicBucketInitialBuckets();
        if (mode == BucketMode.HASH_DYNAMIC) {
            return initial == null ? count : Math.max(1, Math.min(initial.intValue(), count));
        }
        if (mode == BucketMode.KEY_DYNAMIC) {
            Integer parallelism = options.dynamicBucketAssignerParallelism();
            int wanted = Math.max(initial == null ? 0 : initial, parallelism == null ? 0 : parallelism);
            return wanted == 0 ? count : Math.max(1, Math.min(wanted, count));
        }
        return 1;
    }

    /** The channel values, {@code [0, count)}. */
    public int count() {
        return count;
    }

    /** The dynamic-bucket or global-index assigners the channels run; 1 for other modes. */
    public int assigners() {
        return assigners;
    }

    /** Whether the channel of a row matters: false for bucket-unaware append tables. */
    public boolean keyed() {
        return mode != BucketMode.BUCKET_UNAWARE;
    }

    /**
     * Whether the dynamic-bucket assigner {@code assigner} (a channel value) creates and fills {@code
     * bucket} of the partition whose hash is {@code partitionHash}. With as many assigners as
     * channels this is Paimon's rule, {@code bucket % assigners == assigner % assigners}. With fewer
     * ({@code dynamic-bucket.initial-buckets} below the channels) Paimon's rule lets two assigners of
     * one partition own the same bucket, which its separate writer shuffle tolerates and a write that
     * assigns and writes in one channel does not; then the partition's assigners ({@code start ..
     * start + assigners - 1} modulo the channels) own the buckets by their place in that run: {@code
     * bucket % assigners == (assigner - start) mod channels}, where {@code start = |partitionHash %
     * channels|}, Paimon's first channel of the partition.
     */
    public boolean ownsBucket(int assigner, int partitionHash, int bucket) {
        if (assigners == count) {
            return BucketAssigner.isMyBucket(bucket, assigners, assigner);
        }
        int start = Math.abs(partitionHash % count);
        return bucket % assigners == Math.floorMod(assigner - start, count);
    }

    /**
     * The writer channel of a row whose bucket an assigner picked (dynamic buckets, cross-partition
     * update): Paimon's writer shuffle, {@code ChannelComputer.select(partition, bucket, count)}, so
     * every (partition, bucket) reaches one writer whatever assigner picked it.
     */
    public int writerChannel(BinaryRow partition, int bucket) {
        return ChannelComputer.select(partition, bucket, count);
    }

    /** Whether the table's buckets are assigned rather than computed: dynamic buckets, cross-partition update. */
    public boolean assigned() {
        return mode == BucketMode.HASH_DYNAMIC || mode == BucketMode.KEY_DYNAMIC;
    }

    /**
     * Whether rows go through an assigner stage ({@link GovernedAssigner}) before the writers, which
     * then take them with their buckets ({@link GovernedTableWrite#write(InternalRow, int)}): an
     * {@link #assigned()} table over several channels, or over one with {@link #withAssignerStage}.
     */
    public boolean assignerStage() {
        return assigned() && (count > 1 || stagedAlways);
    }

    /** The table's bucket mode. */
    public BucketMode bucketMode() {
        return mode;
    }

    /** A router for one thread. */
    public Router router() {
        return switch (mode) {
            case HASH_FIXED -> fixed(new org.apache.paimon.table.sink.FixedBucketRowKeyExtractor(schema));
            case HASH_DYNAMIC -> dynamic(new RowPartitionKeyExtractor(schema));
            case KEY_DYNAMIC -> crossPartition(new RowPartitionAllPrimaryKeyExtractor(schema));
            case POSTPONE_MODE -> postpone(new PostponeBucketRowKeyExtractor(schema));
            case BUCKET_UNAWARE -> row -> 0;
            default -> throw new UnsupportedTableModeException(schema.toString(), "bucket mode " + mode,
                    "the governed write knows no such bucket mode");
        };
    }

    private Router fixed(KeyAndBucketExtractor<InternalRow> extractor) {
        return row -> {
            extractor.setRecord(row);
            return ChannelComputer.select(extractor.partition(), extractor.bucket(), count);
        };
    }

    private Router dynamic(PartitionKeyExtractor<InternalRow> extractor) {
        return row -> BucketAssigner.computeAssigner(
                extractor.partition(row).hashCode(), extractor.trimmedPrimaryKey(row).hashCode(), count, assigners);
    }

    private Router crossPartition(PartitionKeyExtractor<InternalRow> extractor) {
        return row -> Math.abs(extractor.trimmedPrimaryKey(row).hashCode() % assigners);
    }

    private Router postpone(KeyAndBucketExtractor<InternalRow> extractor) {
        return row -> {
            extractor.setRecord(row);
            return Math.abs((extractor.partition().hashCode() + extractor.trimmedPrimaryKey().hashCode()) % count);
        };
    }

    /**
     * Computes the channel of rows. <b>Thread-safety:</b> one thread; make one per thread with {@link
     * #router()}.
     */
    @FunctionalInterface
    public interface Router {
        /** The channel of {@code row}, in {@code [0, count())}. */
        int channel(InternalRow row);
    }

    @Override
    public String toString() {
        return "WriteChannels{" + mode + ", count=" + count + ", assigners=" + assigners
                + (stagedAlways ? ", assigner stage" : "") + "}";
    }
}
