package io.paimongov.cli;

import io.paimongov.cli.TimelineRecorder.Event;
import io.paimongov.cli.TimelineRecorder.Kind;
import io.paimongov.cli.TimelineRecorder.Sample;
import io.paimongov.cli.TimelineRecorder.Timeline;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Shape;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.util.ShapeUtils;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.SVGUtils;

/**
 * Draws a {@link Timeline} as an SVG chart with JFreeChart, written by JFreeSVG: accounted memory
 * (MiB) over time (ms since the write opened) as a line, the budget as a dashed horizontal line,
 * spills and flushes as markers on the memory line where the sampler saw them. Title and subtitle
 * name the run; the legend names the four series.
 *
 * <p>Runs headless: {@link #write} sets {@code java.awt.headless=true} unless the JVM was given a
 * value, before JFreeChart touches AWT, so no display is needed (AWT still needs fonts, which
 * fontconfig finds). Stateless; {@link #write} may be called from any thread. <b>May throw:</b>
 * {@link IOException} when the file cannot be written.
 */
final class TimelineChart {

    static final String MEMORY = "accounted memory";
    static final String BUDGET = "budget";
    static final String SPILLS = "spill (write buffer to disk)";
    static final String FLUSHES = "flush (data file written)";

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 560;
    private static final double MIB = 1024.0 * 1024.0;

    private TimelineChart() {}

    /**
     * Writes {@code timeline} to {@code file} as SVG.
     *
     * @param subtitle what the run was, e.g. provider, rows and buckets
     */
    static void write(Timeline timeline, String subtitle, Path file) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        JFreeChart chart = chart(timeline, subtitle);
        SVGGraphics2D svg = new SVGGraphics2D(WIDTH, HEIGHT);
        chart.draw(svg, new Rectangle2D.Double(0, 0, WIDTH, HEIGHT));
        SVGUtils.writeToSVG(file.toFile(), svg.getSVGElement());
    }

    private static JFreeChart chart(Timeline timeline, String subtitle) {
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(memory(timeline));
        data.addSeries(budget(timeline));
        data.addSeries(events(timeline, Kind.SPILL, SPILLS));
        data.addSeries(events(timeline, Kind.FLUSH, FLUSHES));
        JFreeChart chart = ChartFactory.createXYLineChart(
                "Accounted memory of one governed write against its budget",
                "time since the write opened (ms)", "MiB accounted", data, PlotOrientation.VERTICAL, true, false, false);
        chart.addSubtitle(new TextTitle(String.format(Locale.ROOT,
                "%s; budget %s; %d spills, %d flushes; sampled every %d ms", subtitle,
                DemoReport.bytes(timeline.budgetBytes()), timeline.total(Kind.SPILL), timeline.total(Kind.FLUSH),
                TimelineRecorder.INTERVAL_MILLIS), new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
        chart.setBackgroundPaint(Color.WHITE);
        style(chart.getXYPlot(), timeline);
        return chart;
    }

    private static XYSeries memory(Timeline timeline) {
        XYSeries series = new XYSeries(MEMORY, false, true);
        for (Sample s : timeline.samples()) {
            series.add(s.millis(), s.reservedBytes() / MIB);
        }
        return series;
    }

    private static XYSeries budget(Timeline timeline) {
        XYSeries series = new XYSeries(BUDGET + " " + DemoReport.bytes(timeline.budgetBytes()), false, true);
        double end = timeline.samples().isEmpty() ? 0 : timeline.samples().get(timeline.samples().size() - 1).millis();
        series.add(0, timeline.budgetBytes() / MIB);
        series.add(end, timeline.budgetBytes() / MIB);
        return series;
    }

    private static XYSeries events(Timeline timeline, Kind kind, String name) {
        XYSeries series = new XYSeries(name + ": " + timeline.total(kind), false, true);
        for (Event e : timeline.events()) {
            if (e.kind() == kind) {
                series.add(e.millis(), e.reservedBytes() / MIB);
            }
        }
        return series;
    }

    private static void style(XYPlot plot, Timeline timeline) {
        plot.setBackgroundPaint(Color.WHITE);
        // Solid grid lines: the dashed line of the chart is the budget's.
        plot.setDomainGridlinePaint(new Color(0xDDDDDD));
        plot.setDomainGridlineStroke(new BasicStroke(0.5f));
        plot.setRangeGridlinePaint(new Color(0xDDDDDD));
        plot.setRangeGridlineStroke(new BasicStroke(0.5f));
        // Room above the budget line, so that it does not sit on the frame.
        plot.getRangeAxis().setRange(0, Math.max(1, timeline.budgetBytes() / MIB * 1.15));
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer();
        // One path per series rather than one line element per pair of samples.
        renderer.setDrawSeriesLineAsPath(true);
        line(renderer, 0, new Color(0x1F77B4), new BasicStroke(1.5f));
        line(renderer, 1, new Color(0xD62728), new BasicStroke(
                2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 5f}, 0f));
        markers(renderer, 2, new Color(0xFF7F0E), ShapeUtils.createDownTriangle(5f));
        markers(renderer, 3, new Color(0x2CA02C), ShapeUtils.createDiamond(5f));
        plot.setRenderer(renderer);
    }

    private static void line(XYLineAndShapeRenderer renderer, int series, Color color, BasicStroke stroke) {
        renderer.setSeriesPaint(series, color);
        renderer.setSeriesStroke(series, stroke);
        renderer.setSeriesShapesVisible(series, false);
    }

    private static void markers(XYLineAndShapeRenderer renderer, int series, Color color, Shape shape) {
        renderer.setSeriesPaint(series, color);
        renderer.setSeriesLinesVisible(series, false);
        renderer.setSeriesShape(series, shape);
        renderer.setSeriesShapesVisible(series, true);
    }
}
