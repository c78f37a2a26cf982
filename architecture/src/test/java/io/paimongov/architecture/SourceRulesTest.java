package io.paimongov.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Rules read from the sources of every module, tests included, where the class-file rules of
 * {@link LayersTest} cannot look: test code of modules the architecture module does not depend on
 * (reliability, test-fixtures) and the length of the files themselves.
 */
class SourceRulesTest {

    /** A main source file past this many lines asks to be split (docs/architecture.md). */
    static final int MAX_MAIN_LINES = 400;

    /**
     * Main files still over {@link #MAX_MAIN_LINES}, each split in a change of its own. An entry that
     * is no longer over (or gone) fails the check, so that the list only shrinks.
     */
    private static final Pattern INTERNAL_IMPORT =
            Pattern.compile("^\\s*import\\s+(static\\s+)?io\\.paimongov\\.runtime\\.internal\\.", Pattern.MULTILINE);

    private static final Path ROOT = Path.of(System.getProperty("basedir", "."), "..").toAbsolutePath().normalize();

    /**
     * {@code io.paimongov.runtime.internal} is the runtime's own: no source file outside
     * governance-runtime, main or test, imports it. An engine integration, the CLI and the
     * benchmarks go through the runtime's public packages.
     */
    @Test
    void onlyTheRuntimeImportsItsInternals() throws IOException {
        List<Path> sources = sources(p -> !p.startsWith(ROOT.resolve("governance-runtime")));
        assertThat(sources).as("sources outside the runtime (the scan must see them)").hasSizeGreaterThan(100);
        List<String> offenders = new ArrayList<>();
        for (Path source : sources) {
            if (INTERNAL_IMPORT.matcher(Files.readString(source)).find()) {
                offenders.add(ROOT.relativize(source).toString());
            }
        }
        assertThat(offenders).as("files outside governance-runtime that import io.paimongov.runtime.internal").isEmpty();
    }

    /** No main source file is over {@value #MAX_MAIN_LINES} lines. */
    @Test
    void noMainFileIsOverTheLimit() throws IOException {
        List<Path> main = sources(p -> p.toString().contains("/src/main/"));
        assertThat(main).as("main sources (the scan must see them)").hasSizeGreaterThan(100);
        Map<String, Long> over = new TreeMap<>();
        for (Path source : main) {
            long lines;
            try (Stream<String> s = Files.lines(source)) {
                lines = s.count();
            }
            if (lines > MAX_MAIN_LINES) {
                over.put(ROOT.relativize(source).toString(), lines);
            }
        }
        assertThat(over).as("main source files over " + MAX_MAIN_LINES + " lines (file=lines): split them by job").isEmpty();
    }

    /** Java and Scala sources under every module's {@code src}, build output and hidden directories left out. */
    private static List<Path> sources(Predicate<Path> keep) throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".scala"))
                    .filter(p -> p.toString().contains("/src/"))
                    .filter(p -> !p.toString().contains("/target/") && !ROOT.relativize(p).toString().startsWith("."))
                    .filter(Files::isRegularFile)
                    .filter(keep)
                    .sorted()
                    .toList();
        }
    }
}
