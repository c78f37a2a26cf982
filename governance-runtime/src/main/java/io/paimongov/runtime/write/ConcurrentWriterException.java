package io.paimongov.runtime.write;

import java.util.List;

/**
 * Another writer committed rows into the buckets this write was writing, between the moment this
 * write opened (or its previous commit) and its commit. Paimon allows one writer per bucket of a
 * primary-key table: two writers that restored a bucket from the same snapshot number their rows
 * with the same sequence numbers, and the table would merge the two writes' rows of that bucket in
 * no defined order (neither "first then second" nor the reverse). The governed write's commit
 * checks the snapshots other commit users wrote before it writes its own snapshot, and fails with
 * this instead: its commit was not published and its data and manifest files were deleted.
 *
 * <p>Which writes conflict: of a primary-key table with fixed buckets, another commit user's
 * {@code APPEND} or {@code OVERWRITE} snapshot that added files to a (partition, bucket) this
 * commit adds to; with dynamic buckets, to a partition this commit adds to (each writer assigns
 * keys to buckets from its own copy of the hash index, so the same key may land in two buckets);
 * of a cross-partition update table, any. Compactions by another user (a dedicated compaction job)
 * do not conflict, nor do append and postpone-bucket tables, nor an overwrite.
 *
 * <p>Immutable; thread-safe.
 */
public final class ConcurrentWriterException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final long snapshot;
    private final String otherCommitUser;
    private final List<String> overlap;

    ConcurrentWriterException(String table, long snapshot, String otherCommitUser, List<String> overlap, String what) {
        super("another writer (commit user " + otherCommitUser + ") committed snapshot " + snapshot + " into " + what
                + " of " + table + " that this write was writing, after this write opened: " + describe(overlap)
                + ". Paimon allows one writer per bucket (two writers of a bucket number their rows alike, and the"
                + " table would merge them in no defined order), so this write's commit was not published and its"
                + " files were deleted; write again once the other writer is done");
        this.table = table;
        this.snapshot = snapshot;
        this.otherCommitUser = otherCommitUser;
        this.overlap = List.copyOf(overlap);
    }

    /** The table's full name. */
    public String table() {
        return table;
    }

    /** The id of the other writer's snapshot that conflicts (the first found). */
    public long snapshot() {
        return snapshot;
    }

    /** The commit user of that snapshot. */
    public String otherCommitUser() {
        return otherCommitUser;
    }

    /** What both wrote: {@code "p=0 bucket 1"}, or {@code "p=0"} where buckets are dynamic, sorted. */
    public List<String> overlap() {
        return overlap;
    }

    private static String describe(List<String> overlap) {
        int shown = Math.min(overlap.size(), 3);
        return String.join(", ", overlap.subList(0, shown))
                + (overlap.size() > shown ? " and " + (overlap.size() - shown) + " more" : "");
    }
}
