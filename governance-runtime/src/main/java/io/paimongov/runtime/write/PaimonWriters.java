package io.paimongov.runtime.write;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.deletionvectors.BucketedDvMaintainer;
import org.apache.paimon.index.DynamicBucketIndexMaintainer;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.mergetree.MergeTreeWriter;
import org.apache.paimon.compact.CompactDeletionFile;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.operation.AbstractFileStoreWrite.WriterContainer;
import org.apache.paimon.operation.FileStoreWrite;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.utils.CommitIncrement;
import org.apache.paimon.utils.IntHashSet;

/**
 * Closes one (partition, bucket) writer of a Paimon write before the write's prepareCommit, and
 * opens it again later where it left off. Paimon 1.4.2 has no call for either: its prepareCommit
 * and checkpoint walk every writer. This is the one place that reaches into Paimon's writer
 * container (its {@code baseSnapshotId} and {@code lastModifiedCommitIdentifier}) and builds a
 * {@link FileStoreWrite.State} (protected constructor) by reflection; {@code PaimonWritersTest}
 * checks both against the Paimon on the class path.
 *
 * <p>Closing does what Paimon's own prepareCommit does for that one writer (flush, wait for its
 * compaction, collect new files, index files and the compaction's deletion file into one commit
 * message), then closes the writer and drops it from the write. The returned {@link Closed} keeps
 * the writer's levels (committed files and files not yet committed) and its last sequence number,
 * so {@link #reopen} gives a writer that continues the sequence and still sees those files: the
 * logical output is the same as if the writer had stayed open.
 *
 * <p><b>Thread-safety:</b> not thread-safe; called on the writing thread inside a write call.
 */
final class PaimonWriters {

    /**
     * A writer closed early: the commit message of what it wrote, and its state to reopen it.
     *
     * @param message the files it wrote since the last prepareCommit (empty when none)
     * @param newFiles data files in {@code message}
     * @param state what {@link #reopen} restores
     */
    record Closed(CommitMessage message, int newFiles, FileStoreWrite.State<?> state) {}

    private static final Field BASE_SNAPSHOT = field("baseSnapshotId");
    /** {@code DynamicBucketIndexMaintainer.hashcode}: the bucket's key hashes. */
    private static final Field MAINTAINED_HASHES = declared(DynamicBucketIndexMaintainer.class, "hashcode");
    /** {@code FileStoreWrite.State.indexMaintainer}: what a closed writer's maintainer keeps. */
    private static final Field STATE_MAINTAINER = declared(FileStoreWrite.State.class, "indexMaintainer");
    private static final Field LAST_MODIFIED = field("lastModifiedCommitIdentifier");
    private static final Constructor<?> STATE = stateConstructor();

    private PaimonWriters() {}

    /** Whether {@code write} has a writer open for ({@code partition}, {@code bucket}). */
    static boolean isOpen(AbstractFileStoreWrite<?> write, BinaryRow partition, int bucket) {
        Map<Integer, ? extends WriterContainer<?>> buckets = write.writers().get(partition);
        return buckets != null && buckets.containsKey(bucket);
    }

    /**
     * Whether the writer of ({@code partition}, {@code bucket}) holds more sorted runs than {@code
     * num-sorted-run.stop-trigger}: the bucket Paimon makes wait for its compaction when it flushes
     * or prepares a commit ({@code MergeTreeCompactManager.shouldWaitForLatestCompaction}). False for
     * writers that are not merge-tree writers (append tables) and for buckets without a writer.
     */
    static boolean pastStopTrigger(AbstractFileStoreWrite<?> write, BinaryRow partition, int bucket) {
        Map<Integer, ? extends WriterContainer<?>> buckets = write.writers().get(partition);
        WriterContainer<?> container = buckets == null ? null : buckets.get(bucket);
        return container != null
                && container.writer instanceof MergeTreeWriter merge
                && merge.compactManager().shouldWaitForLatestCompaction();
    }

    /**
     * Flushes, commits into a message and closes the writer of ({@code partition}, {@code bucket}).
     *
     * @throws IllegalStateException when the write has no such writer
     * @throws Exception what Paimon's flush or close throws; the writer is then left as it was
     */
    static Closed close(AbstractFileStoreWrite<?> write, BinaryRow partition, int bucket) throws Exception {
        return closeTyped(write, partition, bucket);
    }

    private static <T> Closed closeTyped(AbstractFileStoreWrite<T> write, BinaryRow partition, int bucket)
            throws Exception {
        Map<Integer, WriterContainer<T>> buckets = write.writers().get(partition);
        WriterContainer<T> container = buckets == null ? null : buckets.get(bucket);
        if (container == null) {
            throw new IllegalStateException("no open writer for bucket " + bucket + " of partition " + partition);
        }
        CommitIncrement increment = container.writer.prepareCommit(true);
        DataIncrement newFiles = increment.newFilesIncrement();
        CompactIncrement compact = increment.compactIncrement();
        if (container.dynamicBucketMaintainer != null) {
            newFiles.newIndexFiles().addAll(container.dynamicBucketMaintainer.prepareCommit());
        }
        CompactDeletionFile deletionFile = increment.compactDeletionFile();
        if (deletionFile != null) {
            deletionFile.getOrCompute().ifPresent(compact.newIndexFiles()::add);
        }
        CommitMessage message = new CommitMessageImpl(partition, bucket, container.totalBuckets, newFiles, compact);
        Collection<DataFileMeta> files = container.writer.dataFiles();
        FileStoreWrite.State<?> state =
                state(
                        partition,
                        bucket,
                        container.totalBuckets,
                        BASE_SNAPSHOT.getLong(container),
                        LAST_MODIFIED.getLong(container),
                        files,
                        container.writer.maxSequenceNumber(),
                        container.dynamicBucketMaintainer,
                        container.deletionVectorsMaintainer);
        container.writer.close();
        buckets.remove(bucket);
        if (buckets.isEmpty()) {
            write.writers().remove(partition);
        }
        return new Closed(message, newFiles.newFiles().size() + compact.compactAfter().size(), state);
    }

    /**
     * What Paimon's dynamic-bucket writers keep: their key hashes, and the (partition, bucket)s they
     * keep them for.
     *
     * @param hashes key hashes over the writers
     * @param buckets per partition, the buckets with a writer (open, or closed early with its state)
     */
    record HeldHashes(long hashes, Map<BinaryRow, Set<Integer>> buckets) {}

    /**
     * The key hashes Paimon's dynamic-bucket writers of {@code write} keep ({@code
     * DynamicBucketIndexMaintainer}: every hash of its bucket, restored ones included), over its open
     * writers and the writers closed early whose states are {@code closed}. No hashes and no buckets
     * for tables without dynamic buckets.
     */
    static HeldHashes maintainedHashes(AbstractFileStoreWrite<?> write, Collection<Closed> closed) {
        long hashes = 0;
        Map<BinaryRow, Set<Integer>> buckets = new HashMap<>();
        try {
            for (Map.Entry<BinaryRow, ? extends Map<Integer, ? extends WriterContainer<?>>> partition : write.writers().entrySet()) {
                for (Map.Entry<Integer, ? extends WriterContainer<?>> bucket : partition.getValue().entrySet()) {
                    DynamicBucketIndexMaintainer maintainer = bucket.getValue().dynamicBucketMaintainer;
                    if (maintainer != null) {
                        hashes += hashes(maintainer);
                        buckets.computeIfAbsent(partition.getKey(), p -> new HashSet<>()).add(bucket.getKey());
                    }
                }
            }
            for (Closed c : closed) {
                DynamicBucketIndexMaintainer maintainer = (DynamicBucketIndexMaintainer) STATE_MAINTAINER.get(c.state());
                if (maintainer != null) {
                    hashes += hashes(maintainer);
                    buckets.computeIfAbsent(c.message().partition(), p -> new HashSet<>()).add(c.message().bucket());
                }
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read the key hashes of Paimon's dynamic-bucket writers", e);
        }
        return new HeldHashes(hashes, buckets);
    }

    private static long hashes(DynamicBucketIndexMaintainer maintainer) throws IllegalAccessException {
        return ((IntHashSet) MAINTAINED_HASHES.get(maintainer)).size();
    }

    /** Opens the writer {@code closed} came from again, with its files and sequence number. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void reopen(AbstractFileStoreWrite<?> write, Closed closed) {
        ((AbstractFileStoreWrite) write).restore(List.of(closed.state()));
    }

    private static FileStoreWrite.State<?> state(
            BinaryRow partition,
            int bucket,
            int totalBuckets,
            long baseSnapshotId,
            long lastModified,
            Collection<DataFileMeta> files,
            long maxSequenceNumber,
            DynamicBucketIndexMaintainer index,
            BucketedDvMaintainer deletionVectors)
            throws ReflectiveOperationException {
        return (FileStoreWrite.State<?>)
                STATE.newInstance(
                        partition.copy(),
                        bucket,
                        totalBuckets,
                        baseSnapshotId,
                        lastModified,
                        files,
                        maxSequenceNumber,
                        index,
                        deletionVectors,
                        null);
    }

    private static Field declared(Class<?> type, String name) {
        try {
            Field f = type.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this Paimon's " + type.getSimpleName() + " has no field " + name
                    + "; charging dynamic-bucket writers needs Paimon 1.4", e);
        }
    }

    private static Field field(String name) {
        try {
            Field f = WriterContainer.class.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "this Paimon's writer container has no field " + name + "; closing writers early needs Paimon 1.4", e);
        }
    }

    private static Constructor<?> stateConstructor() {
        try {
            Constructor<?> c =
                    FileStoreWrite.State.class.getDeclaredConstructor(
                            BinaryRow.class,
                            int.class,
                            int.class,
                            long.class,
                            long.class,
                            Collection.class,
                            long.class,
                            DynamicBucketIndexMaintainer.class,
                            BucketedDvMaintainer.class,
                            CommitIncrement.class);
            c.setAccessible(true);
            return c;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "this Paimon's FileStoreWrite.State has another constructor; closing writers early needs Paimon 1.4", e);
        }
    }
}
