package io.paimongov.runtime.internal.spill;

import org.apache.paimon.disk.ChannelWriterOutputView;

/**
 * What one {@link TieredSortBuffer} spilled and merged so far, counted as its runs are written; read
 * as a {@link SpillStats} snapshot. Counters survive {@link TieredSortBuffer#clear()}.
 *
 * <p><b>Thread-safety:</b> none; the buffer's writing thread.
 */
final class SpillCounters {

    private long runs;
    private long merges;
    private long mergedRuns;
    private long spillBytes;
    private long rowBytes;
    private long spilledRowBytes;
    private int topTier;
    private int peakOpenChannels;

    /** A run written from memory through {@code out} (closed). */
    void spilled(ChannelWriterOutputView out) {
        runs++;
        spilledRowBytes += out.getNumBytes();
        count(out);
        notePeak(1);
    }

    /** A merge of {@code inputs} runs into one run of {@code tier}, written through {@code out} (closed). */
    void merged(int inputs, ChannelWriterOutputView out, int tier) {
        merges++;
        mergedRuns += inputs;
        count(out);
        topTier = Math.max(topTier, tier);
    }

    /** {@code open} spill channels are open at once now. */
    void notePeak(int open) {
        peakOpenChannels = Math.max(peakOpenChannels, open);
    }

    private void count(ChannelWriterOutputView out) {
        spillBytes += out.getWriteBytes();
        rowBytes += out.getNumBytes();
    }

    SpillStats stats() {
        return new SpillStats(runs, merges, mergedRuns, spillBytes, rowBytes, spilledRowBytes,
                runs == 0 ? 0 : topTier + 1, peakOpenChannels);
    }
}
