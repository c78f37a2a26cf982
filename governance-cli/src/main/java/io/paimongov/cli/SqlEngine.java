package io.paimongov.cli;

import java.util.List;

/**
 * An embedded engine the {@code sql} command runs statements on, with the catalog {@value
 * #CATALOG} registered on the warehouse and current.
 *
 * <p>Not thread-safe: one statement at a time, on the command's thread.
 */
interface SqlEngine extends AutoCloseable {

    /** The governed catalog's name in both engines. */
    String CATALOG = "governed";

    /** What kind of statement it was, as the output tells it. */
    enum Kind {
        /** Returned rows: a query, SHOW, DESCRIBE, EXPLAIN. */
        QUERY,
        /** Wrote through the governed catalog (INSERT, a statement set, DELETE, UPDATE). */
        DML,
        /** Changed a setting (SET, RESET, USE). */
        SET,
        /** Anything else (CREATE, DROP, ALTER, ...). */
        DDL
    }

    /**
     * What one statement did.
     *
     * @param columns the result's column names (empty when it returns no rows)
     * @param rows the rows, values as the engine gives them (numbers, strings, booleans, null; others
     *     as their text)
     * @param governance the governed writes of a DML statement; null for other statements
     */
    record Result(Kind kind, List<String> columns, List<List<Object>> rows, WriteSummary governance, long elapsedMillis) {}

    /** The engine's name, {@code flink} or {@code spark}. */
    String name();

    /**
     * Runs one statement to its end (a DML statement's job included).
     *
     * @throws Exception what the engine threw; the statement failed
     */
    Result execute(String statement) throws Exception;

    /**
     * What to throw when registering the catalog {@value #CATALOG} failed: the catalog's refusal of
     * its options (an {@link IllegalArgumentException} naming the key, which the engines wrap in
     * their own exceptions) as an {@link IllegalArgumentException} of that message, or {@code
     * failure} itself when no refusal is among its causes.
     */
    /** {@code text} as a Flink SQL string literal: in single quotes, each quote doubled. */
    static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    static RuntimeException refusedOptions(RuntimeException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IllegalArgumentException refusal) {
                return new IllegalArgumentException(refusal.getMessage(), failure);
            }
        }
        return failure;
    }

    /** Stops the engine; idempotent. */
    @Override
    void close();
}
