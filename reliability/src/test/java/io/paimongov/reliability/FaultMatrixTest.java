package io.paimongov.reliability;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fault matrix: every allocator on its standalone engine against every fault, on real Paimon
 * tables ({@link Cell} says what one cell does and checks). Each cell is one test, so a failing
 * cell fails the build; {@code target/reliability-report.json} gets every cell's checks and values
 * when the class ends, and a cell that did not run shows there as {@code missing}.
 *
 * <p>Sizes come from {@link Settings}; {@code docs/reliability.md} describes the matrix, the checks
 * and the deep setting.
 */
@Tag("reliability")
class FaultMatrixTest {

    private static final Settings SETTINGS = Settings.fromSystemProperties();
    private static final Report REPORT = new Report(SETTINGS);
    private static final Path MODULE = Path.of(System.getProperty("basedir", "."));

    static Stream<Arguments> cells() {
        List<Arguments> cells = new ArrayList<>();
        for (Allocator a : Allocator.values()) {
            for (Fault f : Fault.values()) {
                cells.add(Arguments.of(a, f));
            }
        }
        return cells.stream();
    }

    @ParameterizedTest(name = "{0} x {1}")
    @MethodSource("cells")
    void cell(Allocator allocator, Fault fault) throws Exception {
        assumeTrue(SETTINGS.allocators().contains(allocator), allocator.id + " is not in " + Settings.ALLOCATORS);
        assumeTrue(SETTINGS.faults().contains(fault), fault.id + " is not in " + Settings.FAULTS);
        long start = System.nanoTime();
        List<Report.Run> runs = new ArrayList<>();
        for (int repeat = 0; repeat < SETTINGS.repeats(); repeat++) {
            runs.add(runOnce(allocator, fault, repeat));
        }
        REPORT.record(allocator, fault, runs, (System.nanoTime() - start) / 1_000_000);
        String failures =
                runs.stream()
                        .filter(r -> !r.passed())
                        .map(FaultMatrixTest::describeFailure)
                        .collect(Collectors.joining("\n"));
        if (!failures.isEmpty()) {
            fail(allocator.id + " x " + fault.id + " failed:\n" + failures);
        }
    }

    private static Report.Run runOnce(Allocator allocator, Fault fault, int repeat) throws Exception {
        Path dir = Files.createDirectories(MODULE.resolve("target/reliability-work/" + allocator.id + "-" + fault.id + "-" + repeat));
        Cell.delete(dir);
        Files.createDirectories(dir);
        long seed = SETTINGS.seedOf(allocator, fault, repeat);
        Cell cell = new Cell(allocator, fault, SETTINGS, repeat);
        String error = null;
        try {
            cell.run(dir);
        } catch (Exception | AssertionError e) {
            error = Errors.summary(e);
        }
        Checks checks = cell.checks();
        Report.Run run = new Report.Run(repeat, seed, cell.outcome, cell.retryOutcome, checks.all(), error, null);
        if (run.passed()) {
            Cell.delete(dir);
            return run;
        }
        return new Report.Run(repeat, seed, cell.outcome, cell.retryOutcome, checks.all(), error, dir.toString());
    }

    private static String describeFailure(Report.Run r) {
        StringBuilder sb = new StringBuilder("  repeat " + r.repeat() + " (seed " + r.seed() + ", kept in " + r.dir() + ")");
        if (r.error() != null) {
            sb.append("\n    broke off: ").append(r.error());
        }
        r.checks().stream()
                .filter(c -> !c.passed())
                .forEach(c -> sb.append("\n    [").append(c.phase()).append("] ").append(c.name())
                        .append(": ").append(c.value()).append(" (expected ").append(c.expected()).append(')'));
        return sb.toString();
    }

    @AfterAll
    static void writeReport() throws Exception {
        REPORT.write(MODULE.resolve("target/reliability-report.json"));
    }
}
