package io.paimongov.cli;

import io.paimongov.benchmarks.lag.LagReport;
import io.paimongov.benchmarks.lag.LagSeries;
import io.paimongov.benchmarks.lag.ReadLag;
import io.paimongov.benchmarks.lag.Run;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.SVGUtils;

/**
 * Draws {@code bench lag}'s runs as an SVG chart with JFreeChart, written by JFreeSVG (as {@link
 * TimelineChart} draws the demo's timeline): for each setting, of the median repetition, the read lag
 * over time (upper panel), the offered rate of its stairs (middle) and the level-0 file count (lower
 * panel). A line ends where its run stopped: at the end of its first stair that was not steady, or
 * its last. The subtitle gives the highest steady rates, the common stair and
 * the peak over the budget.
 *
 * <p>Runs headless, as {@link TimelineChart} does. Stateless; {@link #write} may be called from any
 * thread. <b>May throw:</b> {@link IOException} when the file cannot be written.
 */
final class LagChart {

    static final String TITLE = "Read lag of a deletion-vector table on a staircase of offered rates";
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 640;
    private static final Color[] COLORS = {new Color(0xD62728), new Color(0x1F77B4), new Color(0x2CA02C), new Color(0x7F7F7F),
        new Color(0x9467BD)};

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
    static String label(String line) {
        return ReadLag.label(line) + ("-1".equals(line) ? " (one per bucket)" : "");
    }

    private static JFreeChart chart(LagReport report) {
        int rep = report.medianRepetition();
        XYSeriesCollection lags = new XYSeriesCollection();
        XYSeriesCollection offered = new XYSeriesCollection();
        XYSeriesCollection level0 = new XYSeriesCollection();
        List<String> lines = report.sizes().lines();
        for (String line : lines) {
            Run run = report.run(line, rep);
            XYSeries lag = new XYSeries(label(line), false, true);
            XYSeries files = new XYSeries(label(line) + " ", false, true);
            for (LagSeries.Sample s : run.series().samples()) {
                lag.add(s.millis() / 1e3, s.lagMillis() / 1e3);
                files.add(s.millis() / 1e3, s.level0Files());
            }
            lags.addSeries(lag);
            level0.addSeries(files);
            offered.addSeries(stairs(run, label(line) + "  "));
        }
        XYPlot lagPlot = new XYPlot(lags, null, new NumberAxis("read lag (s)"), renderer(lines.size()));
        XYPlot ratePlot = new XYPlot(offered, null, new NumberAxis("offered (1000 rows/s)"), renderer(lines.size()));
        XYPlot filesPlot = new XYPlot(level0, null, new NumberAxis("level-0 files"), renderer(lines.size()));
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(new NumberAxis("time since the run started (s)"));
        plot.add(lagPlot, 3);
        plot.add(ratePlot, 1);
        plot.add(filesPlot, 1);
        for (XYPlot p : List.of(lagPlot, ratePlot, filesPlot)) {
            p.setBackgroundPaint(Color.WHITE);
            p.setDomainGridlinePaint(new Color(0xDDDDDD));
            p.setRangeGridlinePaint(new Color(0xDDDDDD));
        }
        ratePlot.getRenderer().setDefaultSeriesVisibleInLegend(false);
        filesPlot.getRenderer().setDefaultSeriesVisibleInLegend(false);
        JFreeChart chart = new JFreeChart(TITLE, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        Map<String, Object> m = report.toMap();
        chart.addSubtitle(new TextTitle(String.format(Locale.ROOT,
                "highest steady rows/s %s; steady lag ms at %s rows/s %s (repetition %d of %d); live heap peak %s of the budget",
                m.get("maxSteadyRowsPerSec"), m.get("commonRowsPerSec"), m.get("commonLagMillis"), rep + 1, report.sizes().repetitions(),
                m.get("peakOverBudget")), new Font(Font.SANS_SERIF, Font.PLAIN, 11)));
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** The offered rate of {@code run} over its time, in steps: each stair from its start to the next's (the last to the run's end). */
    private static XYSeries stairs(Run run, String name) {
        XYSeries s = new XYSeries(name, false, true);
        List<Long> starts = run.stairStarts();
        for (int i = 0; i < starts.size(); i++) {
            long end = i + 1 < starts.size() ? starts.get(i + 1) : Math.max(starts.get(i), run.series().endMillis());
            double rate = run.rates().get(i) / 1e3;
            s.add(starts.get(i) / 1e3, rate);
            s.add(end / 1e3, rate);
        }
        return s;
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
