package io.paimongov.runtime.internal.spill;

import java.io.IOException;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemorySegmentUtils;
import org.apache.paimon.sort.BinaryMergeIterator;
import org.apache.paimon.utils.MutableObjectIterator;

/**
 * The rows of a merge, each copied out. The merge reuses one row per stream and callers keep rows
 * across calls, so every row is copied: into the caller's reuse row where it can hold it, as
 * Paimon's own deserialisation reuses a row (one heap segment from offset 0, large enough), else
 * new.
 *
 * <p><b>Thread-safety:</b> none; the reading thread.
 */
final class CopiedRows implements MutableObjectIterator<BinaryRow> {

    private final BinaryMergeIterator<BinaryRow> merged;

    CopiedRows(BinaryMergeIterator<BinaryRow> merged) {
        this.merged = merged;
    }

    @Override
    public BinaryRow next(BinaryRow reuse) throws IOException {
        BinaryRow row = merged.next();
        return row == null ? null : copy(row, reuse);
    }

    @Override
    public BinaryRow next() throws IOException {
        BinaryRow row = merged.next();
        return row == null ? null : row.copy();
    }

    /** {@code row}'s bytes in {@code reuse}, in its own array when that holds them. */
    static BinaryRow copy(BinaryRow row, BinaryRow reuse) {
        if (reuse == null) {
            return row.copy();
        }
        int size = row.getSizeInBytes();
        MemorySegment[] segments = reuse.getSegments();
        if (segments == null || segments.length != 1 || reuse.getOffset() != 0 || segments[0].isOffHeap()
                || segments[0].size() < size) {
            segments = new MemorySegment[] {MemorySegment.wrap(new byte[size])};
        }
        MemorySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), segments[0].getArray(), 0, size);
        reuse.pointTo(segments, 0, size);
        return reuse;
    }
}
