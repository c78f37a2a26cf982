package io.paimongov.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code paimon-governance} command line: {@code providers}, {@code demo}, {@code tck}, {@code bench} and {@code clean} (see {@code
 * docs/cli.md}). {@link #main} runs it and exits with its code; {@link #commandLine()} gives the same
 * configured command to tests, which capture its output with {@code setOut}/{@code setErr}.
 *
 * <p>Exit codes, the same for every subcommand: {@value #EXIT_OK} success, {@value
 * #EXIT_VERIFICATION_FAILED} a check failed, {@value #EXIT_USAGE} bad arguments (the message names the
 * option and goes to stderr), {@value #EXIT_FAILURE} any other failure. Commands write their results
 * to the command line's out and everything else (errors, progress) to its err.
 *
 * <p>Each {@link #commandLine()} is independent; one execution at a time per instance.
 */
@Command(
        name = "paimon-governance",
        mixinStandardHelpOptions = true,
        versionProvider = GovernanceCli.Version.class,
        description = "Governs Apache Paimon table writers: one memory budget, scoped spill, cancellation, metrics.",
        subcommands = {ProvidersCommand.class, DemoCommand.class, TckCommand.class, BenchCommand.class, CleanCommand.class,
            HelpCommand.class})
public final class GovernanceCli implements Callable<Integer> {

    public static final int EXIT_OK = 0;
    public static final int EXIT_VERIFICATION_FAILED = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_FAILURE = 3;

    @Spec CommandSpec spec;

    public static void main(String[] args) {
        int code;
        try {
            code = commandLine().execute(args);
        } catch (Error e) {
            // Picocli handles exceptions only; an Error (OutOfMemoryError under a small -Xmx) is
            // still a failure, not the JVM's default exit code 1, which means "check failed" here.
            System.err.println("error: " + e);
            code = EXIT_FAILURE;
        }
        System.exit(code);
    }

    /** The configured command: exit codes and error printing as documented above. */
    public static CommandLine commandLine() {
        return new CommandLine(new GovernanceCli())
                .setParameterExceptionHandler(GovernanceCli::badArguments)
                .setExecutionExceptionHandler(GovernanceCli::failed);
    }

    /** No subcommand: there is nothing to do, so say what there is. */
    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        err.println("Missing command.");
        spec.commandLine().usage(err);
        return EXIT_USAGE;
    }

    /** The message and a pointer to help, instead of picocli's default of the whole usage text. */
    private static int badArguments(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        return EXIT_USAGE;
    }

    /**
     * A command threw. Configuration errors are {@link IllegalArgumentException}s naming the key:
     * bad arguments. Everything else is a failure.
     */
    private static int failed(Exception e, CommandLine cmd, ParseResult parsed) {
        cmd.getErr().println("error: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
        return e instanceof IllegalArgumentException ? EXIT_USAGE : EXIT_FAILURE;
    }

    /** The version from the jar manifest (absent when run from class directories). */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = GovernanceCli.class.getPackage().getImplementationVersion();
            return new String[] {
                "paimon-governance " + (version == null ? "(development build)" : version),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
            };
        }
    }
}
