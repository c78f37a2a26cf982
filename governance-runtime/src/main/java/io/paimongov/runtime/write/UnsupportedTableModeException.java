package io.paimongov.runtime.write;

/**
 * A table whose mode a governed write cannot run, refused when the write opens, before anything is
 * reserved or written. The message names the table, the mode and why; {@link #table()} and {@link
 * #mode()} carry them for callers that report them apart. The context handed to the write is closed.
 *
 * <p>An {@link IllegalArgumentException}: the table (its options and schema) is the bad argument,
 * and retrying the same table cannot succeed. Immutable.
 */
public final class UnsupportedTableModeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String table;
    private final String mode;

    UnsupportedTableModeException(String table, String mode, String why) {
        super("table '" + table + "' (" + mode + ") cannot be written by a governed write: " + why);
        this.table = table;
        this.mode = mode;
    }

    /** The table's full name. */
    public String table() {
        return table;
    }

    /** The mode that was refused, as {@link TableMode#describe()} names it. */
    public String mode() {
        return mode;
    }
}
