package io.paimongov.benchmarks.calibration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The calibration's output: one row per cell and stage, written as TSV (the file the runtime will
 * read) or JSON (for {@code --json}), and parsed back from TSV.
 *
 * <p>The TSV opens with {@code #} lines naming the harness, the command, the JVM, Paimon and the
 * date ({@link #header}), then a line of column names, then the rows. Columns {@code heapLow} and
 * {@code heapHigh} are live heap above the baseline less the pool's pages, at {@code writersLow}
 * and {@code writersHigh} writers; {@code bytesPerWriter} is their slope; {@code pagesLow},
 * {@code pagesHigh} the page bytes the writers held, {@code pageBytesPerWriter} their slope.
 *
 * <p>Immutable; thread-safe.
 */
public final class FootprintTable {

    static final List<String> COLUMNS =
            List.of("kind", "format", "compression", "valueBytes", "pageSize", "rowsPerWriter", "stage",
                    "bytesPerWriter", "pageBytesPerWriter", "writersLow", "writersHigh", "heapLow", "heapHigh",
                    "pagesLow", "pagesHigh");

    /** The header keys in the order they are written. */
    static final List<String> HEADER_KEYS = List.of("harness", "command", "jvm", "paimon", "date", "machine", "method");

    /**
     * One measured stage of one cell.
     *
     * @param stage {@code open} (primary key: the writer and its write buffer before any flush;
     *     append: the writer with its file writer open), {@code idle} (after a flush, writer alive,
     *     no file open) or {@code file} (primary key only: one open level-0 data-file writer, as a
     *     flush or a compaction rewrite opens)
     */
    public record Row(Cell cell, int rowsPerWriter, String stage, int writersLow, int writersHigh,
            long heapLow, long heapHigh, long pagesLow, long pagesHigh) {

        /** Bytes each further open writer keeps outside pages: the slope between the two counts. */
        public long bytesPerWriter() {
            return Math.round((double) (heapHigh - heapLow) / (writersHigh - writersLow));
        }

        /** Page bytes each further writer holds from the pool. */
        public long pageBytesPerWriter() {
            return Math.round((double) (pagesHigh - pagesLow) / (writersHigh - writersLow));
        }

        List<Object> values() {
            return List.of(cell.kind().label(), cell.format(), cell.compression(), cell.valueBytes(), cell.pageSize(),
                    rowsPerWriter, stage, bytesPerWriter(), pageBytesPerWriter(), writersLow, writersHigh, heapLow,
                    heapHigh, pagesLow, pagesHigh);
        }
    }

    /** The header lines, {@code key: value}, written in the order of {@link #HEADER_KEYS}. */
    private final Map<String, String> header;
    private final List<Row> rows;

    public FootprintTable(Map<String, String> header, List<Row> rows) {
        this.header = Map.copyOf(header);
        this.rows = List.copyOf(rows);
    }

    public Map<String, String> header() {
        return header;
    }

    public List<Row> rows() {
        return rows;
    }

    public String toTsv() {
        StringBuilder out = new StringBuilder();
        for (String key : HEADER_KEYS) {
            if (header.containsKey(key)) {
                out.append("# ").append(key).append(": ").append(header.get(key)).append('\n');
            }
        }
        out.append(String.join("\t", COLUMNS)).append('\n');
        for (Row r : rows) {
            List<String> cells = new ArrayList<>();
            r.values().forEach(v -> cells.add(String.valueOf(v)));
            out.append(String.join("\t", cells)).append('\n');
        }
        return out.toString();
    }

    public String toJson() {
        StringBuilder out = new StringBuilder("{\n");
        for (String key : HEADER_KEYS) {
            if (header.containsKey(key)) {
                out.append("  ").append(quote(key)).append(": ").append(quote(header.get(key))).append(",\n");
            }
        }
        out.append("  \"rows\": [");
        for (int i = 0; i < rows.size(); i++) {
            List<Object> values = rows.get(i).values();
            out.append(i == 0 ? "\n" : ",\n").append("    {");
            for (int c = 0; c < COLUMNS.size(); c++) {
                Object v = values.get(c);
                out.append(c == 0 ? "" : ", ").append(quote(COLUMNS.get(c))).append(": ")
                        .append(v instanceof String s ? quote(s) : v.toString());
            }
            out.append('}');
        }
        return out.append("\n  ]\n}\n").toString();
    }

    public void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, file.toString().endsWith(".json") ? toJson() : toTsv(), StandardCharsets.UTF_8);
    }

    /** Reads a table {@link #toTsv} wrote; fails on a missing column or a malformed line. */
    public static FootprintTable parseTsv(String text) {
        Map<String, String> header = new LinkedHashMap<>();
        List<Row> rows = new ArrayList<>();
        boolean sawColumns = false;
        for (String line : text.split("\n")) {
            if (line.startsWith("# ")) {
                int colon = line.indexOf(": ");
                header.put(line.substring(2, colon), line.substring(colon + 2));
            } else if (!sawColumns) {
                if (!List.of(line.split("\t")).equals(COLUMNS)) {
                    throw new IllegalArgumentException("unexpected columns: " + line);
                }
                sawColumns = true;
            } else if (!line.isBlank()) {
                rows.add(parseRow(line));
            }
        }
        if (!sawColumns) {
            throw new IllegalArgumentException("no column line");
        }
        return new FootprintTable(header, rows);
    }

    private static Row parseRow(String line) {
        String[] f = line.split("\t");
        if (f.length != COLUMNS.size()) {
            throw new IllegalArgumentException("expected " + COLUMNS.size() + " fields: " + line);
        }
        Cell cell = new Cell(Cell.Kind.valueOf(f[0].toUpperCase(Locale.ROOT)), f[1], f[2], Integer.parseInt(f[3]),
                Integer.parseInt(f[4]));
        Row row = new Row(cell, Integer.parseInt(f[5]), f[6], Integer.parseInt(f[9]), Integer.parseInt(f[10]),
                Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14]));
        if (row.bytesPerWriter() != Long.parseLong(f[7]) || row.pageBytesPerWriter() != Long.parseLong(f[8])) {
            throw new IllegalArgumentException("per-writer figures do not match the measurements: " + line);
        }
        return row;
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
