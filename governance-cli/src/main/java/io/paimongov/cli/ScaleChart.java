package io.paimongov.cli;

import io.paimongov.benchmarks.scale.CellResult;
import io.paimongov.benchmarks.scale.RunSeries;
import io.paimongov.benchmarks.scale.ScaleReport;
import io.paimongov.benchmarks.scale.ScaleSummary;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.SVGUtils;

/**
 * Draws the scale grid as an SVG table with JFreeSVG (as {@link TimelineChart} writes its chart):
 * one row per (table kind, format), one column per writer count, and in each box the governed
 * and the plain write (rows/s, or FAILED and the reason's kind), the throughput ratio, the heap
 * drift and the accounted peak over the budget. A box is green when the governed write survived and
 * is not worse than plain Paimon (plain failed, or the ratio is at least 0.9), amber when it
 * survived but is slower than that, red when it failed, grey where the grid has no cell. The title
 * gives the verdicts.
 *
 * <p>Runs headless, as {@link TimelineChart} does. Stateless; {@link #write} may be called from any thread. <b>May throw:</b> {@link IOException}
 * when the file cannot be written.
 */
final class ScaleChart {

    private static final int BOX_W = 340;
    private static final int BOX_H = 70;
    private static final int LEFT = 150;
    private static final int TOP = 110;
    private static final int MARGIN = 20;
    static final Color GOOD = new Color(0xD8F0D2);
    static final Color SLOW = new Color(0xFCE8B2);
    static final Color FAILED = new Color(0xF6C6C2);
    static final Color EMPTY = new Color(0xEEEEEE);

    private ScaleChart() {}

    static void write(ScaleReport report, String subtitle, Path file) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        List<Integer> writers = new ArrayList<>(new TreeSet<>(report.cells().stream().map(c -> c.cell().writers()).toList()));
        List<String> rows = new ArrayList<>();
        for (CellResult c : report.cells()) {
            String row = row(c);
            if (!rows.contains(row)) {
                rows.add(row);
            }
        }
        int width = Math.max(900, LEFT + writers.size() * BOX_W + MARGIN);
        int height = TOP + rows.size() * BOX_H + 60;
        SVGGraphics2D g = new SVGGraphics2D(width, height);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString("Governed vs plain Paimon by writer count, each write in its own JVM", MARGIN, 26);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString(subtitle, MARGIN, 46);
        ScaleSummary s = report.summary();
        g.drawString(ScaleText.verdicts(s), MARGIN, 64);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
        for (int i = 0; i < writers.size(); i++) {
            g.drawString(String.format(Locale.ROOT, "%,d writers", writers.get(i)), LEFT + i * BOX_W + 8, TOP - 10);
        }
        for (int r = 0; r < rows.size(); r++) {
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
            g.setColor(Color.BLACK);
            g.drawString(rows.get(r), MARGIN, TOP + r * BOX_H + BOX_H / 2 + 4);
            for (int i = 0; i < writers.size(); i++) {
                box(g, find(report, rows.get(r), writers.get(i)), LEFT + i * BOX_W, TOP + r * BOX_H);
            }
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.setColor(Color.DARK_GRAY);
        g.drawString("green: governed survived and is not worse than plain with its settings (plain failed, or governed/plain rows/s >= 0.9);"
                + " amber: survived, slower; red: governed failed. heap: live heap peak / budget (measured from outside);"
                + " acctd: accounted peak / budget; drift: live heap peak / accounted peak - 1.", MARGIN, TOP + rows.size() * BOX_H + 30);
        SVGUtils.writeToSVG(file.toFile(), g.getSVGElement());
    }

    /** Fill colour of a cell's box. */
    static Color color(CellResult c) {
        if (c == null) {
            return EMPTY;
        }
        if (!c.governed().survived()) {
            return FAILED;
        }
        Double ratio = c.throughputRatio();
        return ratio == null || ratio >= ScaleSummary.NEVER_WORSE_RATIO ? GOOD : SLOW;
    }

    private static void box(SVGGraphics2D g, CellResult c, int x, int y) {
        g.setColor(color(c));
        g.fillRect(x + 2, y + 2, BOX_W - 4, BOX_H - 4);
        g.setColor(Color.GRAY);
        g.setStroke(new BasicStroke(0.5f));
        g.drawRect(x + 2, y + 2, BOX_W - 4, BOX_H - 4);
        if (c == null) {
            return;
        }
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawString("governed " + ScaleText.outcome(c.governed()), x + 8, y + 18);
        g.drawString("plain " + ScaleText.outcome(c.plain()) + " (defaults " + ScaleText.outcome(c.plainDefaults()) + ")", x + 8, y + 34);
        g.drawString(String.format(Locale.ROOT, "ratio %s (%s)  heap %s  acctd %s  drift %s", num(c.throughputRatio()),
                num(c.throughputRatioDefaults()), num(c.heapPeakOverBudget()), num(c.accountedPeakOverBudget()), num(c.heapDrift())),
                x + 8, y + 50);
        RunSeries gov = c.governed();
        if (gov.survived()) {
            g.drawString(String.format(Locale.ROOT, "spill/input %s  rolled early %d", num(c.writtenSpillBytesRatio()), gov.value("filesRolledEarly")),
                    x + 8, y + 64);
        }
    }

    private static String row(CellResult c) {
        return c.cell().table().label() + " " + c.cell().format();
    }

    private static CellResult find(ScaleReport report, String row, int writers) {
        return report.cells().stream().filter(c -> row(c).equals(row) && c.cell().writers() == writers).findFirst().orElse(null);
    }

    private static String num(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }
}
