package io.paimongov.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits a SQL script into statements at the semicolons that end them, as the engines' own SQL
 * clients do: a semicolon inside a quoted string ({@code '...'}, {@code "..."}, {@code `...`}, a
 * doubled quote escaping itself) or a comment ({@code -- ...} to the end of the line, {@code /* ...
 * *}{@code /}) does not end a statement. Comments stay in the statement's text (a hint {@code /*+
 * OPTIONS(...) *}{@code /} is one); a piece that holds nothing but comments and blanks is no
 * statement. A script's last statement may end without a semicolon.
 *
 * <p>A statement set of Flink's is one statement, its inner semicolons included, in either of the
 * forms Flink's SQL client takes: {@code EXECUTE STATEMENT SET BEGIN ...; ...; END} and {@code
 * BEGIN STATEMENT SET; ...; ...; END} ({@link #asExecuteStatementSet} turns the second into the
 * first, which is the one {@code TableEnvironment.executeSql} runs).
 *
 * <p>Stateless; thread-safe.
 */
final class SqlScript {

    private static final Pattern BEGIN_STATEMENT_SET = Pattern.compile("(?i)BEGIN\\s+STATEMENT\\s+SET\\s*;");
    private static final Pattern END = Pattern.compile("(?i)(?<=[;\\s])END\\s*$");

    private SqlScript() {}

    /**
     * The statements of {@code script}, trimmed, without their ending semicolons.
     *
     * @throws IllegalArgumentException for a quote or block comment left open at the end, naming
     *     where it began
     */
    static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean meaningful = false;
        int i = 0;
        int n = script.length();
        while (i < n) {
            char c = script.charAt(i);
            if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
                int end = script.indexOf('\n', i);
                end = end < 0 ? n : end;
                current.append(script, i, end);
                i = end;
            } else if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
                int end = script.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new IllegalArgumentException("a comment opened at " + position(script, i) + " is never closed");
                }
                boolean hint = i + 2 < n && script.charAt(i + 2) == '+';
                current.append(script, i, end + 2);
                meaningful |= hint;
                i = end + 2;
            } else if (c == '\'' || c == '"' || c == '`') {
                int end = closingQuote(script, i);
                current.append(script, i, end + 1);
                meaningful = true;
                i = end + 1;
            } else if (c == ';' && !insideStatementSet(current)) {
                if (meaningful) {
                    statements.add(current.toString().trim());
                }
                current.setLength(0);
                meaningful = false;
                i++;
            } else {
                current.append(c);
                meaningful |= !Character.isWhitespace(c);
                i++;
            }
        }
        if (meaningful) {
            statements.add(current.toString().trim());
        }
        return statements;
    }

    /**
     * {@code statement} of the form {@code BEGIN STATEMENT SET; s1; ...; sN; END} (as {@link
     * #statements} keeps it) as {@code EXECUTE STATEMENT SET BEGIN s1; ...; sN; END}; empty for any
     * other statement.
     */
    static Optional<String> asExecuteStatementSet(String statement) {
        String s = withoutLeadingComments(statement);
        Matcher begin = BEGIN_STATEMENT_SET.matcher(s);
        Matcher end = END.matcher(s);
        if (!begin.lookingAt() || !end.find() || end.start() < begin.end()) {
            return Optional.empty();
        }
        StringBuilder set = new StringBuilder("EXECUTE STATEMENT SET BEGIN\n");
        for (String inner : statements(s.substring(begin.end(), end.start()))) {
            set.append(inner).append(";\n");
        }
        return Optional.of(set.append("END").toString());
    }

    /**
     * The first word of {@code statement} in upper case, after leading comments ({@code SELECT},
     * {@code INSERT}, ...); {@code "("} for a statement that opens with a parenthesis.
     */
    static String verb(String statement) {
        String s = withoutLeadingComments(statement);
        if (s.startsWith("(")) {
            return "(";
        }
        int end = 0;
        while (end < s.length() && Character.isLetter(s.charAt(end))) {
            end++;
        }
        return s.substring(0, end).toUpperCase(java.util.Locale.ROOT);
    }

    /** {@code text} from its first character that is neither blank nor in a comment. */
    private static String withoutLeadingComments(String text) {
        String s = text;
        while (true) {
            s = s.stripLeading();
            if (s.startsWith("--")) {
                int end = s.indexOf('\n');
                s = end < 0 ? "" : s.substring(end + 1);
            } else if (s.startsWith("/*") && !s.startsWith("/*+")) {
                int end = s.indexOf("*/");
                s = end < 0 ? "" : s.substring(end + 2);
            } else {
                return s;
            }
        }
    }

    private static int closingQuote(String script, int open) {
        char quote = script.charAt(open);
        int i = open + 1;
        while (i < script.length()) {
            if (script.charAt(i) == quote) {
                if (i + 1 < script.length() && script.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i;
            }
            i++;
        }
        throw new IllegalArgumentException("a quote (" + quote + ") opened at " + position(script, open) + " is never closed");
    }

    /** Whether {@code text} opened a statement set ({@code ... BEGIN}) that no {@code END} closed yet. */
    private static boolean insideStatementSet(StringBuilder text) {
        String words = withoutLeadingComments(text.toString()).replaceAll("\\s+", " ").trim().toUpperCase(java.util.Locale.ROOT);
        if (!words.startsWith("EXECUTE STATEMENT SET BEGIN") && !words.startsWith("BEGIN STATEMENT SET")) {
            return false;
        }
        return !words.endsWith(" END");
    }

    private static String position(String script, int index) {
        int line = 1;
        int column = 1;
        for (int i = 0; i < index; i++) {
            if (script.charAt(i) == '\n') {
                line++;
                column = 1;
            } else {
                column++;
            }
        }
        return "line " + line + ", column " + column;
    }
}
