package io.paimongov.reliability;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import java.util.Spliterators;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * The governance fuzzer, in the spirit of Velox's memory-arbitration fuzzer: many governed writes
 * at once in this JVM, sharing one engine, with random table modes, formats, writer counts,
 * budgets, page sizes, spill limits and compaction threads, random cancels, and the engine's
 * memory shrunk by another consumer mid-run ({@link FuzzCase} draws it all from one seed, {@link
 * FuzzIteration} runs it, {@link FuzzChecks} says what must hold). Each iteration is one dynamic
 * test named after its seed; a failure message starts with the seed and the command that runs it
 * alone. {@link FuzzSettings} has the properties; {@code docs/reliability.md}, "The governance
 * fuzzer", the deep setting.
 *
 * <p>Iterations run in the test JVM: an off-heap crash kills the fork (surefire then reports the
 * fork's death), and the report's last "start seed" line names the seed that did it.
 */
@Tag("reliability")
@Tag("fuzz")
class GovernanceFuzzerTest {

    private static final Path MODULE = Path.of(System.getProperty("basedir", "."));
    private static final FuzzSettings SETTINGS = FuzzSettings.fromSystemProperties();
    private static final FuzzReport REPORT = new FuzzReport(MODULE.resolve("target/governance-fuzz-report.txt"), SETTINGS);
    /** Set when an iteration hung: the run stops, since its threads may still hold the engine. */
    private static volatile boolean hung;

    @TestFactory
    Stream<DynamicTest> fuzz() {
        Iterator<DynamicTest> iterations = new Iterator<>() {
            private final SplittableRandom random = SETTINGS.random();
            private final long start = System.nanoTime();
            private int done;

            @Override
            public boolean hasNext() {
                return !hung && SETTINGS.more(done, (System.nanoTime() - start) / 1_000_000);
            }

            @Override
            public DynamicTest next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                long seed = SETTINGS.seeds().isEmpty() ? random.nextLong() : SETTINGS.seeds().get(done);
                done++;
                return DynamicTest.dynamicTest("seed " + seed, () -> runSeed(seed));
            }
        };
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterations, 0), false);
    }

    /** Runs one seed and fails with the seed first when a check failed or the iteration broke off. */
    private static void runSeed(long seed) throws Exception {
        FuzzCase fuzzCase = FuzzCase.draw(seed, SETTINGS.maxRows());
        Path dir = MODULE.resolve("target/fuzz-work/seed-" + seed);
        Cell.delete(dir);
        Files.createDirectories(dir);
        REPORT.started(fuzzCase);
        long start = System.nanoTime();
        FuzzIteration it;
        Checks checks;
        try {
            it = new FuzzIteration(fuzzCase, dir, FuzzSettings.DEADLINE_MILLIS);
            it.run();
            checks = FuzzChecks.of(it);
        } catch (Exception | AssertionError e) {
            REPORT.brokeOff(seed, Errors.summary(e));
            throw new AssertionError(header(seed) + "\n  case: " + fuzzCase.describe() + "\n  broke off: " + Errors.summary(e)
                    + "\n  kept in " + dir, e);
        }
        boolean passed = checks.passed();
        REPORT.ended(it, passed, (System.nanoTime() - start) / 1_000_000);
        if (passed) {
            Cell.delete(dir);
            return;
        }
        hung = it.hung;
        String failed = checks.failed().stream()
                .map(c -> "  [" + c.phase() + "] " + c.name() + ": " + c.value() + " (expected " + c.expected() + ")")
                .collect(Collectors.joining("\n"));
        String outcomes = it.writes.stream()
                .map(w -> "  w" + w.plan.index() + ": " + w.outcome() + (w.error == null ? "" : " " + Errors.summary(w.error)))
                .collect(Collectors.joining("\n"));
        fail(header(seed) + "\n  case: " + fuzzCase.describe() + "\n" + failed + "\n" + outcomes + "\n  kept in " + dir
                + (it.hung ? "\n  thread stacks at the deadline:\n" + it.stacks : ""));
    }

    private static String header(long seed) {
        return "seed " + seed + ": " + SETTINGS.reproduce(seed);
    }

    @AfterAll
    static void summary() {
        REPORT.summary();
    }
}
