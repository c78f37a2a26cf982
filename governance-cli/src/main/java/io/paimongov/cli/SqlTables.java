package io.paimongov.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * How the {@code sql} command prints a statement's result for people: a query's rows as a table
 * with a header and a row count, a write's governance summary on one line, anything else as OK.
 *
 * <p>Stateless; called on the command's thread.
 */
final class SqlTables {

    private SqlTables() {}

    static void print(PrintWriter out, String statement, SqlEngine.Result result) {
        switch (result.kind()) {
            case QUERY -> table(out, result.columns(), result.rows());
            case DML -> {
                out.println("OK: " + SqlCommand.firstLine(statement) + " (" + result.elapsedMillis() + " ms)");
                if (result.governance() != null) {
                    out.println(result.governance().toText());
                }
            }
            default -> out.println("OK: " + SqlCommand.firstLine(statement));
        }
    }

    private static void table(PrintWriter out, List<String> columns, List<List<Object>> rows) {
        List<List<String>> cells = new ArrayList<>();
        cells.add(columns);
        for (List<Object> row : rows) {
            List<String> line = new ArrayList<>();
            for (Object value : row) {
                line.add(value == null ? "NULL" : String.valueOf(value));
            }
            cells.add(line);
        }
        int[] widths = new int[columns.size()];
        for (List<String> line : cells) {
            for (int i = 0; i < widths.length && i < line.size(); i++) {
                widths[i] = Math.max(widths[i], line.get(i).length());
            }
        }
        String rule = rule(widths);
        out.println(rule);
        out.println(line(widths, columns));
        out.println(rule);
        for (List<String> line : cells.subList(1, cells.size())) {
            out.println(line(widths, line));
        }
        out.println(rule);
        out.println(rows.size() + (rows.size() == 1 ? " row" : " rows"));
    }

    private static String rule(int[] widths) {
        StringBuilder sb = new StringBuilder("+");
        for (int w : widths) {
            sb.append("-".repeat(w + 2)).append('+');
        }
        return sb.toString();
    }

    private static String line(int[] widths, List<String> cells) {
        StringBuilder sb = new StringBuilder("|");
        for (int i = 0; i < widths.length; i++) {
            String cell = i < cells.size() ? cells.get(i) : "";
            sb.append(' ').append(cell).append(" ".repeat(widths[i] - cell.length())).append(" |");
        }
        return sb.toString();
    }
}
