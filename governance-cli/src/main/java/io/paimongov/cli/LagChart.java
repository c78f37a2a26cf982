package io.paimongov.cli;

import io.paimongov.benchmarks.lag.LagReport;
import io.paimongov.benchmarks.lag.LagSeries;
import io.paimongov.benchmarks.lag.ReadLag;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.SVGUtils;

/**
 * Draws {@code bench lag}'s runs as an SVG chart with JFreeChart, written by JFreeSVG (as {@link
 * TimelineChart} draws the demo's timeline): for each {@code compaction.task-threads} setting, of
 * the median repetition, the read lag over time (upper panel, its steady mean as a dashed line from
 * where the run settled) and the level-0 file count (lower panel). The subtitle gives the ratios,
 * the offered rate and the peak over the budget.
 *
 * <p>Runs headless, as {@link TimelineChart} does. Stateless; {@link #write} may be called from any
 * thread. <b>May throw:</b> {@link IOException} when the file cannot be written.
 */
final class LagChart {

    static final String TITLE = "Read lag of a deletion-vector table by compaction.task-threads";
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 640;
    private static final Color[] COLORS = {new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C)};

    private LagChart() {}

    static void write(LagReport report, Path file) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        JFreeChart chart = chart(report);
        SVGGraphics2D svg = new SVGGraphics2D(WIDTH, HEIGHT);
        chart.draw(svg, new Rectangle2D.Double(0, 0, WIDTH, HEIGHT));
        SVGUtils.writeToSVG(file.toFile(), svg.getSVGElement());
    }

    /** The legend name of a setting. */
    static String label(String threads) {
        return "task-threads " + threads + ("-1".equals(threads) ? " (one per bucket)" : "");
    }

    private static JFreeChart chart(LagReport report) {
        int rep = report.medianRepetition();
        XYSeriesCollection lags = new XYSeriesCollection();
        XYSeriesCollection level0 = new XYSeriesCollection();
        List<String> settings = ReadLag.SETTINGS;
        for (String threads : settings) {
            XYSeries lag = new XYSeries(label(threads), false, true);
            XYSeries files = new XYSeries(label(threads) + " ", false, true);
            for (LagSeries.Sample s : report.run(threads, rep).series().samples()) {
                lag.add(s.millis() / 1e3, s.lagMillis() / 1e3);
                files.add(s.millis() / 1e3, s.level0Files());
            }
            lags.addSeries(lag);
            level0.addSeries(files);
        }
        XYPlot lagPlot = new XYPlot(lags, null, new NumberAxis("read lag (s)"), renderer(settings.size()));
        XYPlot filesPlot = new XYPlot(level0, null, new NumberAxis("level-0 files"), renderer(settings.size()));
        for (int i = 0; i < settings.size(); i++) {
            ReadLag.Run run = report.run(settings.get(i), rep);
            ValueMarker mean = new ValueMarker(run.steady().meanMillis() / 1e3, COLORS[i % COLORS.length],
                    new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
            lagPlot.addRangeMarker(mean);
        }
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(new NumberAxis("time since the run started (s)"));
        plot.add(lagPlot, 3);
        plot.add(filesPlot, 1);
        for (XYPlot p : List.of(lagPlot, filesPlot)) {
            p.setBackgroundPaint(Color.WHITE);
            p.setDomainGridlinePaint(new Color(0xDDDDDD));
            p.setRangeGridlinePaint(new Color(0xDDDDDD));
        }
        filesPlot.getRenderer().setDefaultSeriesVisibleInLegend(false);
        JFreeChart chart = new JFreeChart(TITLE, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.addSubtitle(new TextTitle(String.format(Locale.ROOT,
                "lagRatio2 %.2f, lagRatioAll %.2f (medians of %d repetitions; chart: repetition %d); %,.0f rows/s offered = %.2f x one"
                        + " thread's drain; peak %.2f of the budget; dashed: steady mean", report.medianRatio("2"), report.medianRatio("-1"),
                report.sizes().repetitions(), rep + 1, report.offeredRowsPerSec(), report.sizes().overload(), report.peakOverBudget()),
                new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    private static XYLineAndShapeRenderer renderer(int n) {
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        renderer.setDrawSeriesLineAsPath(true);
        for (int i = 0; i < n; i++) {
            renderer.setSeriesPaint(i, COLORS[i % COLORS.length]);
            renderer.setSeriesStroke(i, new BasicStroke(1.5f));
        }
        return renderer;
    }
}
