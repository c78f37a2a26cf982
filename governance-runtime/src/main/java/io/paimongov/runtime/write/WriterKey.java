package io.paimongov.runtime.write;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.memory.MemorySegment;

/**
 * One (partition, bucket) writer; bucket -1 where Paimon picks buckets itself. Its hash is
 * computed once. Every row looks its writer up, so the hash and the comparison read a small
 * partition (one segment, up to {@value #WORD_BYTES} bytes: a few fixed-width fields or short
 * strings) as whole words instead of going through {@link BinaryRow#hashCode} and {@link
 * BinaryRow#equals}, which walk it byte by byte; a partition compares equal to another exactly
 * when its bytes do, as for {@link BinaryRow#equals}.
 *
 * <p>Immutable (the partition is a copy the key owns); thread-safe.
 */
final class WriterKey {
    /** Partitions up to this size are hashed and compared word by word. */
    static final int WORD_BYTES = 64;

    private final BinaryRow partition;
    private final int bucket;
    private final int hash;

    WriterKey(BinaryRow partition, int bucket) {
        this.partition = partition;
        this.bucket = bucket;
        this.hash = hash(partition, bucket);
    }

    /** The hash of the key of ({@code partition}, {@code bucket}), computed without making one. */
    static int hash(BinaryRow partition, int bucket) {
        if (!inWords(partition)) {
            return 31 * partition.hashCode() + bucket;
        }
        int size = partition.getSizeInBytes();
        MemorySegment segment = partition.getSegments()[0];
        int offset = partition.getOffset();
        long h = size;
        for (int i = 0; i < size; i += 8) {
            h = (h ^ segment.getLong(offset + i)) * 0x9E3779B97F4A7C15L;
        }
        return 31 * (int) (h ^ (h >>> 32)) + bucket;
    }

    /** Whether this key is ({@code partition}, {@code bucket}); {@code hash} is {@link #hash} of them. */
    boolean is(BinaryRow partition, int bucket, int hash) {
        return this.hash == hash && this.bucket == bucket && sameBytes(this.partition, partition);
    }

    private static boolean sameBytes(BinaryRow a, BinaryRow b) {
        int size = a.getSizeInBytes();
        if (size != b.getSizeInBytes()) {
            return false;
        }
        if (!inWords(a) || !inWords(b)) {
            return a.equals(b);
        }
        MemorySegment as = a.getSegments()[0];
        MemorySegment bs = b.getSegments()[0];
        int ao = a.getOffset();
        int bo = b.getOffset();
        for (int i = 0; i < size; i += 8) {
            if (as.getLong(ao + i) != bs.getLong(bo + i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code row} is hashed and compared word by word: one segment, whole words, at most {@value #WORD_BYTES} bytes. */
    private static boolean inWords(BinaryRow row) {
        int size = row.getSizeInBytes();
        return row.getSegments().length == 1 && (size & 7) == 0 && size <= WORD_BYTES;
    }

    BinaryRow partition() {
        return partition;
    }

    int bucket() {
        return bucket;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof WriterKey k && k.is(partition, bucket, hash));
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "WriterKey[partition=" + partition + ", bucket=" + bucket + "]";
    }
}
