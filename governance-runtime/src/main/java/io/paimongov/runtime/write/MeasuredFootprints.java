package io.paimongov.runtime.write;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The runtime's footprint model: the bytes a writer keeps on the heap outside the pool's pages, per
 * stage, read from the table the calibration harness writes ({@code benchmarks/calibrate}, class
 * {@code io.paimongov.benchmarks.calibration.Calibrate}; resource {@value #RESOURCE}). Nothing here
 * is a guess: every number is a measured cell of that table.
 *
 * <p>A look-up names the table kind ({@code pk} or {@code append}), the file format and the stage,
 * and takes the page size nearest to the write's. Cells measured at other compressions and row
 * widths are not told apart: the look-up answers the largest of them, so a row wider than the widest
 * measured or a compression not measured is charged the most any measured one cost (the table shows
 * the differences are within 20%). A kind, format or stage the table does not have is an {@link
 * IllegalArgumentException} naming what is missing and what the table has.
 *
 * <p>Immutable; thread-safe. {@link #get()} parses the resource once per class loader.
 */
public final class MeasuredFootprints {

    /** The class-path resource the calibration writes. */
    public static final String RESOURCE = "/io/paimongov/runtime/footprint/footprints.tsv";

    /** One measured (kind, format, compression, row width, page size, stage) cell. */
    record Cell(String kind, String format, String compression, int valueBytes, int pageSize, String stage,
            long bytesPerWriter) {}

    private static final class Holder {
        static final MeasuredFootprints TABLE = load();
    }

    private final List<Cell> cells;

    MeasuredFootprints(List<Cell> cells) {
        this.cells = List.copyOf(cells);
    }

    /** The table shipped with the runtime. */
    public static MeasuredFootprints get() {
        return Holder.TABLE;
    }

    /**
     * Bytes one writer of this kind and format keeps in {@code stage}, outside pages: the largest
     * measured cell at the page size nearest to {@code pageSize}.
     *
     * @throws IllegalArgumentException when the table has no cell for the kind, format and stage
     */
    public long bytes(String kind, String format, String stage, int pageSize) {
        String f = format.toLowerCase(Locale.ROOT);
        List<Cell> matching = new ArrayList<>();
        for (Cell c : cells) {
            if (c.kind.equals(kind) && c.format.equals(f) && c.stage.equals(stage)) {
                matching.add(c);
            }
        }
        if (matching.isEmpty()) {
            throw new IllegalArgumentException(
                    "no measured footprint for kind=" + kind + ", format=" + f + ", stage=" + stage + " in " + RESOURCE
                            + " (it has: " + known() + "); run benchmarks/calibrate to measure it");
        }
        int nearest = matching.get(0).pageSize;
        for (Cell c : matching) {
            if (Math.abs((long) c.pageSize - pageSize) < Math.abs((long) nearest - pageSize)) {
                nearest = c.pageSize;
            }
        }
        long most = 0;
        for (Cell c : matching) {
            if (c.pageSize == nearest) {
                most = Math.max(most, c.bytesPerWriter);
            }
        }
        return most;
    }

    /** Whether the table has cells for this kind, format and stage. */
    public boolean has(String kind, String format, String stage) {
        String f = format.toLowerCase(Locale.ROOT);
        return cells.stream().anyMatch(c -> c.kind.equals(kind) && c.format.equals(f) && c.stage.equals(stage));
    }

    private String known() {
        return cells.stream().map(c -> c.kind + "/" + c.format + "/" + c.stage).distinct().sorted().toList().toString();
    }

    private static MeasuredFootprints load() {
        try (InputStream in = MeasuredFootprints.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the measured footprint table " + RESOURCE + " is not on the class path");
            }
            return parse(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    /** Parses the calibration's TSV: {@code #} lines, a line of column names, then the rows. */
    static MeasuredFootprints parse(BufferedReader reader) throws IOException {
        List<Cell> cells = new ArrayList<>();
        List<String> columns = null;
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            List<String> fields = List.of(line.split("\t", -1));
            if (columns == null) {
                columns = fields;
                continue;
            }
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < columns.size() && i < fields.size(); i++) {
                row.put(columns.get(i), fields.get(i));
            }
            cells.add(new Cell(
                    field(row, "kind"),
                    field(row, "format"),
                    field(row, "compression"),
                    Integer.parseInt(field(row, "valueBytes")),
                    Integer.parseInt(field(row, "pageSize")),
                    field(row, "stage"),
                    Long.parseLong(field(row, "bytesPerWriter"))));
        }
        return new MeasuredFootprints(cells);
    }

    private static String field(Map<String, String> row, String column) {
        return Objects.requireNonNull(row.get(column), () -> RESOURCE + ": a row has no column " + column);
    }
}
