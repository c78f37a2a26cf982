package io.paimongov.reliability;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What the command line under test offers that some chaos checks need, read from its own help:
 * the demo's re-run with orphan removal ({@code --orphans-older-than}), the {@code clean}
 * command, the environment exit code 4 (full disk) and the cleanup on SIGTERM (exit code 143 in
 * the demo's exit codes). A check whose feature is missing is recorded as pending with its
 * measured value and does not fail the suite; with {@code -Dgovernance.chaos.strict=true} every
 * feature counts as present, so every check is enforced.
 *
 * @param rerun {@code demo --orphans-older-than} exists: a demo on a warehouse holding the table
 *     continues into it and removes orphans older than the margin first
 * @param clean {@code clean --warehouse W --older-than D --json} exists
 * @param environmentExitCode the demo lists exit code 4 (environment errors such as a full disk)
 * @param signalCleanup the demo lists exit code 143 (SIGTERM cancels the write and removes what the
 *     run created)
 */
record CliFeatures(boolean rerun, boolean clean, boolean environmentExitCode, boolean signalCleanup) {

    static final String STRICT = "governance.chaos.strict";

    private static final Pattern CLEAN = Pattern.compile("(?m)^\\s+clean\\s");
    private static final Pattern EXIT_4 = Pattern.compile("(?m)^\\s+4\\s+\\S");
    private static final Pattern EXIT_143 = Pattern.compile("(?m)^\\s+143\\s+\\S");

    static CliFeatures probe(Path dir) throws Exception {
        if (Boolean.getBoolean(STRICT)) {
            return new CliFeatures(true, true, true, true);
        }
        ChaosRun.Result demo = ChaosRun.run(List.of("demo", "--help"), dir.resolve("tmp"), dir.resolve("demo-help.log"));
        ChaosRun.Result commands = ChaosRun.run(List.of("--help"), dir.resolve("tmp"), dir.resolve("help.log"));
        String help = demo.stdout();
        return new CliFeatures(
                help.contains("--orphans-older-than"),
                CLEAN.matcher(commands.stdout()).find(),
                EXIT_4.matcher(help).find(),
                EXIT_143.matcher(help).find());
    }

    /** The features missing, in words, for the report; empty when none is. */
    String missing() {
        StringBuilder b = new StringBuilder();
        if (!rerun) {
            b.append("demo re-run with --orphans-older-than; ");
        }
        if (!clean) {
            b.append("clean command; ");
        }
        if (!environmentExitCode) {
            b.append("exit code 4; ");
        }
        if (!signalCleanup) {
            b.append("cleanup on SIGTERM (exit code 143); ");
        }
        return b.toString();
    }
}
