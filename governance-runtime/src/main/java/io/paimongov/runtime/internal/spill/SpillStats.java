package io.paimongov.runtime.internal.spill;

/**
 * What a {@link TieredSortBuffer} spilled and merged since it was made, an immutable snapshot.
 * Every field is exact (counted as the work happens) and only grows; {@link
 * TieredSortBuffer#clear()} does not reset it.
 *
 * @param runs sorted runs spilled from memory (one per spill)
 * @param merges merges of runs on disk, tier merges and the merges that bring the final read down
 *     to the fan-in
 * @param mergedRuns runs read by those merges
 * @param spillBytes bytes written to spill files, runs and merge outputs (compressed, as on disk)
 * @param rowBytes bytes of serialized rows written to spill files before compression, runs and
 *     merge outputs: the measure of how often a row was rewritten
 * @param spilledRowBytes bytes of serialized rows written by spills alone (each row at most once)
 * @param tiers the highest tier any run reached plus one (0: nothing spilled; 1: runs never merged)
 * @param peakOpenChannels the most spill channels open at once (readers of a merge or of the final
 *     read, plus a merge's writer): never above the fan-in plus one
 */
record SpillStats(
        long runs,
        long merges,
        long mergedRuns,
        long spillBytes,
        long rowBytes,
        long spilledRowBytes,
        int tiers,
        int peakOpenChannels) {}
