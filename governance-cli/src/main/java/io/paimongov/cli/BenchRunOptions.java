package io.paimongov.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options a bench subcommand that measures in a work directory shares ({@code bench native},
 * {@code bench read}; see {@link BenchReport#runIn}): {@code --json}, {@code --work-dir} and the
 * hidden {@code --tiny}. Each subcommand keeps its own {@code --quick}, whose sizes it describes. A
 * picocli mixin: one instance per execution; not thread-safe.
 */
final class BenchRunOptions {

    /** Seconds-long sizes for the project's own tests; the values mean little. */
    @Option(names = "--tiny", hidden = true)
    boolean tiny;

    @Option(names = "--json", description = "Print one JSON object with the measured values.")
    boolean json;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the tables go (default: a temporary directory, removed after).")
    Path workDir;
}
