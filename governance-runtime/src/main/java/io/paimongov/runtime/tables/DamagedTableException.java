package io.paimongov.runtime.tables;

import java.io.IOException;

/**
 * A file a Paimon table needs is missing or cannot be read: a snapshot, tag or changelog file that
 * is no longer the JSON Paimon wrote, a manifest list, manifest or index manifest that is missing
 * or truncated, a data or index file that a snapshot references and that is missing or has other
 * than its recorded size. Thrown by {@link TableCheck}.
 *
 * <p>The message names the table, the file and what is wrong with it, then what can be done; never
 * the file's content (a parser's message quotes the bytes it choked on, so none is passed on).
 * {@link #damage()} is the first part alone, for callers that say what to do in their own words.
 *
 * <p>Immutable; thread-safe.
 */
public final class DamagedTableException extends IOException {

    private static final long serialVersionUID = 1L;

    /** What the callers that have no better advice say to do. */
    static final String ADVICE = "restore the file from a backup, or drop the table and write it again";

    private final String table;
    private final String file;
    private final String damage;

    DamagedTableException(String table, String file, String damage, Throwable cause) {
        super(damage + "; " + ADVICE, cause);
        this.table = table;
        this.file = file;
        this.damage = damage;
    }

    /** The table's full name, {@code db.table}. */
    public String table() {
        return table;
    }

    /** The damaged file's path. */
    public String file() {
        return file;
    }

    /** What is wrong, without advice: {@code "table db.t is damaged: its manifest file PATH ... is missing"}. */
    public String damage() {
        return damage;
    }
}
