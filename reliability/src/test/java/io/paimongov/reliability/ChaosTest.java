package io.paimongov.reliability;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paimongov.fixtures.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chaos suite: the CLI's demo as a child process, stopped by SIGKILL or SIGTERM after a drawn
 * phase, or by a full disk, then checked from the outside, run again and checked again ({@link
 * ChaosTrial}). Each run is one test. {@code -Dgovernance.chaos.runs=N} (default {@value
 * ChaosCase#CI_RUNS}, each kind of fault once) and {@code -Dgovernance.chaos.seed=S} (default
 * {@value ChaosCase#DEFAULT_SEED}) choose the runs; {@code target/chaos-report.json} and {@code
 * target/chaos-report.md} get every run's numbers and checks when the class ends.
 *
 * <p>Every failed check fails its run. docs/reliability.md, "The chaos suite".
 */
@Tag("chaos")
class ChaosTest {

    static final int RUNS = Integer.getInteger("governance.chaos.runs", ChaosCase.CI_RUNS);
    static final long SEED = Long.getLong("governance.chaos.seed", ChaosCase.DEFAULT_SEED);
    private static final Path WORK = Path.of(System.getProperty("basedir", "."), "target", "chaos-work");
    private static final List<ChaosTrial> TRIALS = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void clear() throws Exception {
        Cell.delete(WORK);
    }

    static Stream<ChaosCase> runs() {
        return ChaosCase.draw(SEED, RUNS).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    void run(ChaosCase run) throws Exception {
        Path dir = Files.createDirectories(WORK.resolve("run-" + run.index()));
        ChaosTrial trial = new ChaosTrial(run, dir);
        TRIALS.add(trial);
        trial.run();
        assumeTrue(trial.row().notRun().isEmpty(), trial.row().notRun());
        List<Checks.Check> failed = trial.checks().failed();
        if (!failed.isEmpty()) {
            fail("chaos run " + run + " (seed " + SEED + ", logs in " + dir + ") failed:\n"
                    + failed.stream().map(ChaosTest::describe).collect(Collectors.joining("\n")));
        }
        Cell.delete(dir);
    }

    private static String describe(Checks.Check c) {
        return "  [" + c.phase() + "] " + c.name() + ": " + c.value() + ", expected " + c.expected();
    }

    @AfterAll
    static void report() throws Exception {
        ObjectNode root = Json.object();
        root.put("seed", SEED);
        root.put("runs", RUNS);
        ArrayNode runs = root.putArray("results");
        StringBuilder md = new StringBuilder("| # | fault | phase (+delay) | table | exit | last phase | left after the fault | after the next run / clean | checks |\n"
                + "|---|---|---|---|---|---|---|---|---|\n");
        for (ChaosTrial trial : TRIALS) {
            ChaosTrial.Row row = trial.row();
            ObjectNode r = runs.addObject();
            r.put("run", String.valueOf(trial.checks().all().isEmpty() && row == null ? "did not finish" : row));
            ArrayNode checks = r.putArray("checks");
            for (Checks.Check c : trial.checks().all()) {
                checks.addObject().put("phase", c.phase()).put("name", c.name()).put("passed", c.passed())
                        .put("value", c.value()).put("expected", c.expected());
            }
            if (row != null) {
                md.append(markdown(row, trial.checks())).append('\n');
            }
        }
        Files.createDirectories(WORK.getParent());
        Files.writeString(WORK.resolveSibling("chaos-report.json"), Json.pretty(root), StandardCharsets.UTF_8);
        Files.writeString(WORK.resolveSibling("chaos-report.md"), md.toString(), StandardCharsets.UTF_8);
    }

    private static String markdown(ChaosTrial.Row row, Checks checks) {
        ChaosCase c = row.run();
        if (!row.notRun().isEmpty()) {
            return "| " + c.index() + " | " + c.fault().label + " | | " + c.mode() + " | not run: " + row.notRun() + " | | | | |";
        }
        long passed = checks.all().stream().filter(Checks.Check::passed).count();
        long failed = checks.failed().size();
        String phase = c.phase() == null ? "-" : c.phase() + " +" + c.delayMillis() + " ms" + (row.signalled() ? "" : " (ended first)");
        return "| " + c.index() + " | " + c.fault().label + " | " + phase + " | " + c.mode() + " | " + row.exitCode() + " | "
                + row.lastPhase() + " | " + row.afterFault().describe() + " | " + row.afterCleanup().describe() + " (" + row.cleanup()
                + ") | " + passed + " passed" + (failed > 0 ? ", " + failed + " FAILED" : "") + " |";
    }
}
