package io.paimongov.cli;

import java.io.PrintWriter;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code paimon-governance} command line: {@code providers}, {@code demo}, {@code sql}, {@code tck}, {@code bench} and {@code clean} (see {@code
 * docs/cli.md}). {@link #main} runs it and exits with its code; {@link #commandLine()} gives the same
 * configured command to tests, which capture its output with {@code setOut}/{@code setErr}.
 *
 * <p>Exit codes, the same for every subcommand: {@value #EXIT_OK} success, {@value
 * #EXIT_VERIFICATION_FAILED} a check failed, {@value #EXIT_USAGE} bad arguments (the message names the
 * option and goes to stderr), {@value #EXIT_ENVIRONMENT} an error of the environment (no space left,
 * permission denied, a read-only file system, out of memory; {@link RootCause} names it), {@value
 * #EXIT_FAILURE} any other failure; after SIGINT and SIGTERM the JVM's own {@value #EXIT_SIGINT} and
 * {@value #EXIT_SIGTERM} ({@link ShutdownCleanup}). Commands write their results to the command
 * line's out and everything else (errors, progress) to its err.
 *
 * <p>{@link #main} runs the command inside the process's own temp directory ({@link ProcessTempScope}),
 * so that a run leaves nothing in the machine's temp directory however it ends.
 *
 * <p>Each {@link #commandLine()} is independent; one execution at a time per instance.
 */
@Command(
        name = "paimon-governance",
        mixinStandardHelpOptions = true,
        versionProvider = GovernanceCli.Version.class,
        description = "Governs Apache Paimon table writers: one memory budget, scoped spill, cancellation, metrics.",
        exitCodeListHeading = "%nExit codes (every command; docs/cli.md says which each returns):%n",
        exitCodeList = {
            GovernanceCli.EXIT_OK + ":success",
            GovernanceCli.EXIT_VERIFICATION_FAILED + ":a check failed (demo: the table differs from the model; tck: a rule; sql: a statement)",
            GovernanceCli.EXIT_USAGE + ":bad arguments (the message names the option)",
            GovernanceCli.EXIT_FAILURE + ":an internal failure (the error is printed)",
            GovernanceCli.EXIT_ENVIRONMENT + ":an error of the environment: no space left, permission denied, a read-only file system,"
                    + " out of memory, a damaged table, another writer",
            GovernanceCli.EXIT_SIGINT + ":stopped by SIGINT (Ctrl-C), after the cleanup",
            GovernanceCli.EXIT_SIGTERM + ":stopped by SIGTERM, after the cleanup"
        },
        subcommands = {ProvidersCommand.class, DemoCommand.class, SqlCommand.class, TckCommand.class})
public final class GovernanceCli implements Callable<Integer> {

    public static final int EXIT_OK = 0;
    public static final int EXIT_VERIFICATION_FAILED = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_FAILURE = 3;
    public static final int EXIT_ENVIRONMENT = 4;
    /** 128 + SIGINT: the JVM's status after Ctrl-C, kept by {@link ShutdownCleanup}. */
    public static final int EXIT_SIGINT = 130;
    /** 128 + SIGTERM: the JVM's status after {@code kill}, kept by {@link ShutdownCleanup}. */
    public static final int EXIT_SIGTERM = 143;

    @Spec CommandSpec spec;

    public static void main(String[] args) {
        // First, before any library extracts native code into java.io.tmpdir.
        ProcessTempScope temp = ProcessTempScope.enter(System.err);
        int code;
        try {
            code = commandLine().execute(args);
        } catch (Error e) {
            // Picocli handles exceptions only; an Error (OutOfMemoryError under a small -Xmx) is
            // still a failure, not the JVM's default exit code 1, which means "check failed" here.
            RootCause.Diagnosis why = RootCause.of(e, RootCause.Memory.of(-1), List.of());
            System.err.println("error: " + why.message());
            code = why.kind().exitCode;
        } finally {
            if (temp != null) {
                temp.close();
            }
        }
        System.exit(code);
    }

    /** The configured command: exit codes and error printing as documented above. */
    public static CommandLine commandLine() {
        // bench's classes name the benchmarks' types, which only the lab tool has (LabTool).
        return new CommandLine(new GovernanceCli())
                .addSubcommand(LabTool.present() ? BenchCommand.class : BenchElsewhere.class)
                .addSubcommand(CleanCommand.class)
                .addSubcommand(HelpCommand.class)
                .registerConverter(Path.class, GovernanceCli::path)
                .setParameterExceptionHandler(GovernanceCli::badArguments)
                .setExecutionExceptionHandler(GovernanceCli::failed);
    }

    /**
     * A path option's value as the JDK names files. A name the JVM's file-name encoding cannot
     * represent (a non-ASCII name under the POSIX locale, where the JDK encodes file names in ASCII)
     * is refused with what to change rather than written somewhere else.
     */
    private static Path path(String value) {
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new TypeConversionException("'" + value + "' cannot name a file in this JVM, whose file names are"
                    + " encoded as " + System.getProperty("sun.jnu.encoding") + " (from the locale); run it with a"
                    + " UTF-8 locale, e.g. LANG=C.UTF-8");
        }
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
     * bad arguments. An error of the environment anywhere in the cause chain is named ({@link
     * RootCause}). Everything else is a failure.
     */
    private static int failed(Exception e, CommandLine cmd, ParseResult parsed) {
        RootCause.Diagnosis why = RootCause.of(e, RootCause.Memory.of(-1), List.of());
        // A usage error's message names the key; anything else is named with its root cause.
        String message = why.kind() == RootCause.Kind.USAGE && e.getMessage() != null ? e.getMessage() : why.message();
        cmd.getErr().println("error: " + message);
        return why.kind().exitCode;
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
