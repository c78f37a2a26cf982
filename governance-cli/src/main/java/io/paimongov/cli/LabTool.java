package io.paimongov.cli;

/**
 * The lab tool: the source tree's {@code ./paimon-governance}, whose class path adds the engines,
 * the benchmarks and the charting libraries to the operator distribution's (docs/distribution.md).
 * {@code bench} and {@code demo --timeline} run there only; the core archive leaves their libraries
 * out, and this says so by name instead of failing on a missing class.
 *
 * <p>Thread-safe and stateless; the class path is fixed when the JVM starts.
 */
final class LabTool {

    /** Classes of module benchmarks, of JFreeChart and of JFreeSVG: all three are the lab's. */
    private static final String[] CLASSES = {
        "io.paimongov.benchmarks.EndToEnd", "org.jfree.chart.JFreeChart", "org.jfree.svg.SVGGraphics2D"
    };

    private LabTool() {
    }

    /** Whether the benchmarks and the charts are on the class path. */
    static boolean present() {
        return OptionalClasses.present(CLASSES);
    }

    /** Why {@code what} cannot run here and where it can. */
    static String missing(String what) {
        return what + " runs in the lab tool only, which has the benchmarks and the charts the operator archive leaves"
                + " out: run ./paimon-governance from a source checkout (docs/distribution.md)";
    }
}
