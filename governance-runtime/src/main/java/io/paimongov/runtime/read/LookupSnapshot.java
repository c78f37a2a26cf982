package io.paimongov.runtime.read;

/**
 * What a governed lookup did, at one moment: an immutable snapshot of {@link
 * GovernedLookup#metrics()}. The names are stable (docs/metrics.md).
 *
 * @param lookups keys looked up
 * @param hits of those, the keys found (a row that is not deleted)
 * @param refreshes times the lookup took a snapshot's files
 * @param buckets (partition, bucket)s whose files it has
 * @param cacheBytes bytes of lookup pages its cache keeps now, charged to the budget (kind {@code lookup})
 * @param peakCacheBytes the most its cache kept at once, as seen after each lookup
 * @param buildBytes held for building one local lookup file from a data file: the largest reader of its files (kind {@code read})
 * @param cancelled whether a cancel stopped it
 * @param keyScans lookups answered by reading the table, as a field lookup does for a key it has not
 *     cached when the table does not fit its cache ({@link GovernedFieldLookup}); 0 for primary-key lookups
 * @param buildBatchRows rows per batch of the build reader when the budget made it read in batches
 *     smaller than the table's {@code read.batch-size}; 0 when it reads the table's (and for field lookups)
 */
public record LookupSnapshot(
        long lookups, long hits, long refreshes, long buckets, long cacheBytes, long peakCacheBytes, long buildBytes,
        boolean cancelled, long keyScans, long buildBatchRows) {}
