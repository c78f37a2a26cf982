package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code demo --timeline}: a spilling write draws a well-formed SVG chart whose legend agrees with
 * the report and whose memory line stays under the budget line, {@code --json} stays one object,
 * and a bad file name is a usage error naming the option before anything is written. The SVG is
 * read with the JDK's own XML parser.
 */
class DemoTimelineTest {

    private static final String SVG = "http://www.w3.org/2000/svg";
    private static final Pattern POINT = Pattern.compile("[ML](-?[0-9.E]+),(-?[0-9.E]+)");

    @TempDir Path tmp;

    @Test
    void spillingWriteDrawsItsMemoryUnderTheBudgetWithEverySpillAndFlushMarked() throws Exception {
        Path svg = tmp.resolve("timeline.svg");
        CliRun run = CliRun.of(args("--json", "--timeline", svg.toString()));

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.err()).isEmpty();
        JsonNode json = run.json();
        assertThat(json.get("timeline").asText()).isEqualTo(svg.toAbsolutePath().toString());
        long spills = json.get("spillCount").asLong();
        long flushes = json.get("flushCount").asLong();
        assertThat(spills).isPositive();

        Document doc = parse(svg);
        assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
        assertThat(texts(doc))
                .contains("Accounted memory of one governed write against its budget")
                .contains(TimelineChart.MEMORY, TimelineChart.BUDGET + " 3.0 MiB")
                .contains(TimelineChart.SPILLS + ": " + spills, TimelineChart.FLUSHES + ": " + flushes)
                .contains("time since the write opened (ms)");

        // The memory line is the path with the most points: one per sample, every 5 ms. How many
        // samples a write gets depends on the machine's speed (a fresh-clone run once drew 100 and
        // failed a "more than 100" check), so only its being a line is required; the checks below
        // hold it to the budget. In SVG y grows downwards, so "under the budget" is "never above the
        // budget's y".
        // The budget is the widest dashed path (the legend shows a short one).
        List<double[]> memory = paths(doc, false).stream()
                .filter(path -> path.size() > 2)
                .max(Comparator.comparingInt(List::size)).orElseThrow();
        List<double[]> budget = paths(doc, true).stream().max(Comparator.comparingDouble(DemoTimelineTest::width)).orElseThrow();
        assertThat(budget).hasSize(2);
        double budgetY = budget.get(0)[1];
        assertThat(budget.get(1)[1]).isEqualTo(budgetY);
        assertThat(memory).allSatisfy(p -> assertThat(p[1]).isGreaterThanOrEqualTo(budgetY - 0.5));
        double zeroY = memory.stream().mapToDouble(p -> p[1]).max().orElseThrow();
        double topY = memory.stream().mapToDouble(p -> p[1]).min().orElseThrow();
        assertThat(zeroY - topY)
                .as("a spilling write uses most of its budget (memory line y from %s to %s, budget at y %s, %s points)",
                        topY, zeroY, budgetY, memory.size())
                .isGreaterThan(0.5 * (zeroY - budgetY));
    }

    @Test
    void textReportNamesTheChart() {
        Path svg = tmp.resolve("t.SVG");
        CliRun run = CliRun.of(args("--timeline", svg.toString()));

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().replaceAll("\\s+", " ")).contains("timeline " + svg.toAbsolutePath() + ": accounted memory");
        assertThat(svg).isRegularFile();
    }

    @Test
    void aDirectoryThatDoesNotExistIsAUsageError() {
        Path svg = tmp.resolve("missing").resolve("t.svg");
        CliRun run = CliRun.of(args("--json", "--timeline", svg.toString()));

        assertUsageError(run, "does not exist");
        assertThat(tmp.resolve("missing")).doesNotExist();
    }

    @Test
    void aFileThatIsNotSvgIsAUsageError() {
        CliRun run = CliRun.of(args("--timeline", tmp.resolve("t.png").toString()));

        assertUsageError(run, "must name an .svg file");
        assertThat(tmp.resolve("t.png")).doesNotExist();
    }

    @Test
    void aDirectoryNamedLikeAnSvgFileIsAUsageError() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("charts.svg"));
        CliRun run = CliRun.of(args("--timeline", dir.toString()));

        assertUsageError(run, "is a directory");
    }

    private static void assertUsageError(CliRun run, String reason) {
        assertThat(run.exitCode()).isEqualTo(GovernanceCli.EXIT_USAGE);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("'--timeline'").contains(reason);
    }

    /** The small spilling job with more rows: a write of a second or more gives the sampler hundreds of points. */
    private static final String[] TIMELINE_JOB = {
        "demo", "--rows", "200000", "--keys", "20000", "--buckets", "2", "--budget", "3m", "--page-size", "16k"
    };

    private static String[] args(String... more) {
        List<String> all = new ArrayList<>(List.of(TIMELINE_JOB));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /** Parses without fetching the SVG 1.1 DTD the DOCTYPE names. */
    private static Document parse(Path svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return factory.newDocumentBuilder().parse(svg.toFile());
    }

    private static List<String> texts(Document doc) {
        List<String> texts = new ArrayList<>();
        NodeList nodes = doc.getElementsByTagNameNS(SVG, "text");
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(nodes.item(i).getTextContent());
        }
        return texts;
    }

    /** The points of every path drawn with (or without) a dashed stroke. */
    private static List<List<double[]>> paths(Document doc, boolean dashed) {
        List<List<double[]>> paths = new ArrayList<>();
        NodeList nodes = doc.getElementsByTagNameNS(SVG, "path");
        for (int i = 0; i < nodes.getLength(); i++) {
            Element path = (Element) nodes.item(i);
            // The memory series is drawn in its own colour (TimelineChart, series 0), the budget dashed.
            if (path.getParentNode() instanceof Element group
                    && group.getAttribute("style").contains("stroke-dasharray") == dashed
                    && (dashed || group.getAttribute("style").contains("stroke:rgb(31,119,180)"))
                    && !"clipPath".equals(group.getLocalName())) {
                paths.add(points(path.getAttribute("d")));
            }
        }
        return paths;
    }

    private static double width(List<double[]> points) {
        double min = points.stream().mapToDouble(p -> p[0]).min().orElse(0);
        double max = points.stream().mapToDouble(p -> p[0]).max().orElse(0);
        return max - min;
    }

    private static List<double[]> points(String d) {
        List<double[]> points = new ArrayList<>();
        Matcher m = POINT.matcher(d);
        while (m.find()) {
            points.add(new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))});
        }
        return points;
    }
}
