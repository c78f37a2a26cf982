package io.paimongov.cli;

import io.paimongov.runtime.Providers;
import io.paimongov.tck.Rule;
import io.paimongov.tck.TckProgress;
import io.paimongov.tck.TckReport;
import io.paimongov.tck.TckRunner;
import io.paimongov.tck.TckSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tck}: runs the conformance kit against a provider found by name, in the CLI's class path
 * or in the vendor jars given with {@code --classpath}, and prints the report rule by rule (see
 * {@code docs/cli.md}). Every argument is checked before the kit starts; a bad one is a {@link
 * ParameterException} naming it (exit code 2). An unknown provider lists the names found, an unknown
 * rule id lists the valid ones.
 *
 * <p>Exit code 0 when every required rule passed and no rule failed or timed out; 1 when a rule
 * failed or timed out, a required rule did not pass, or the run ended before every rule ran (an
 * optional rule may skip, but one that ran and failed is a defect of the provider, as it is when a
 * vendor runs the kit in its own build, where a required rule that is skipped fails too). The
 * text's last line names the required rules that were skipped and why; every report records the
 * kit's settings and flags those that made it check less than its defaults. Output: the report on stdout, as text or, with {@code
 * --json}, as exactly one JSON object, also when a time limit or a signal ends the run (SIGTERM,
 * SIGINT: the rule running is reported timed out, the rules left not run, and the JVM exits with
 * 143 or 130); a start line, a line per rule as it ends and the log on stderr (no lines with {@code
 * --json}).
 *
 * <p>Picocli creates one instance per execution; not thread-safe, and one run per JVM at a time
 * (the kit's settings are system properties, see {@link RunScope}).
 */
@Command(
        name = "tck",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = {
            "Runs the conformance kit (the TCK) against an allocator module's provider and reports rule by"
                    + " rule. The provider is found by name with ServiceLoader, on the CLI's class path or in"
                    + " the jars given with --classpath.",
            "With the defaults the whole kit takes a few minutes; --tries, --write-tries, --rows and --rule"
                    + " make it shorter, larger values make it deeper."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every required rule passed and none failed",
            "1:a rule failed or timed out, a required rule did not pass (skipped: the last line says which and why), or the run's time limit"
                    + " ended it",
            "2:bad arguments",
            "3:the kit could not run (the error is printed)",
            "4:an error of the environment, named by its root cause (no space left, permission denied, out of memory)",
            "130:stopped by SIGINT (Ctrl-C): the report of what ran is printed first",
            "143:stopped by SIGTERM; likewise"
        })
final class TckCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--provider", paramLabel = "NAME", required = true,
            description = "The provider to verify, by name (see 'providers'; with --classpath, the vendor's too).")
    String provider;

    @Option(names = "--classpath", paramLabel = "JAR",
            description = "A vendor jar or class directory holding the provider and its"
                    + " META-INF/services/io.paimongov.spi.GovernanceProvider; repeat it, or join paths with '${sys:path.separator}'.")
    List<String> classPath = new ArrayList<>();

    @Option(names = "--tries", paramLabel = "N",
            description = "Tries of the cheap properties; sets " + TckSettings.TRIES + " (default 50).")
    Integer tries;

    @Option(names = "--write-tries", paramLabel = "N",
            description = "Tries of the properties that write real tables; sets " + TckSettings.WRITE_TRIES + " (default 3).")
    Integer writeTries;

    @Option(names = "--rows", paramLabel = "N",
            description = "Rows of the largest workload; sets " + TckSettings.ROWS + " (default 20000).")
    Integer rows;

    @Option(names = "--rule-timeout-s", paramLabel = "N",
            description = "The most any one rule may run, in seconds, before it is reported TIMED_OUT; sets "
                    + TckSettings.RULE_TIMEOUT_S + " (default: each rule's own limit, a minute for the rules that only call the allocator).")
    Integer ruleTimeout;

    @Option(names = "--run-timeout-s", paramLabel = "N",
            description = "The most the whole run may take, in seconds; the rules left are then reported NOT_RUN. Sets "
                    + TckSettings.RUN_TIMEOUT_S + " (default 1800 at the default sizes).")
    Integer runTimeout;

    @Option(names = "--rule", paramLabel = "ID",
            description = "Run only this rule, such as MEM-1; repeat it for several. Default: every rule.")
    List<String> rules = new ArrayList<>();

    @Option(names = "--junit-xml", paramLabel = "DIR",
            description = "Also write JUnit XML reports (the legacy format CI servers read) into DIR.")
    Path junitXml;

    @Option(names = "--json", description = "Print the report as one JSON object (keys in docs/cli.md).")
    boolean json;

    @Override
    public Integer call() throws IOException {
        Set<Rule> only = rules();
        Map<String, String> settings = settings();
        Path reports = reportsDir();
        // Taken before RunScope points System.out elsewhere: picocli creates its writer on first use.
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        TckProgress progress = new TckProgress(json ? result -> {} : result -> {
            err.println("tck: " + result.id() + " " + result.status() + " (" + result.millis() + " ms)");
            err.flush();
        });
        TckReport report;
        RunScope scope = new RunScope(settings);
        try (VendorClassPath vendor = vendorClassPath();
                ShutdownCleanup cleanup = ShutdownCleanup.install()) {
            checkProvider(vendor.loader());
            // Read here too so that a bad value given with JAVA_OPTS=-D... stops the run before it starts.
            TckSettings effective = TckSettings.fromSystemProperties();
            if (!json) {
                err.println(startLine(only, effective));
                err.flush();
            }
            // On SIGTERM or SIGINT the run stops and its report is printed all the same: by this thread
            // when the runner returns in time, else by the hook from what ran so far; never both.
            cleanup.cancelOnShutdown(() -> progress.stop(STOPPED_BY));
            cleanup.onAbandon(() -> print(out, progress.snapshot()));
            report = TckRunner.runDiscovered(provider, vendor.loader(), only, reports, progress);
            TckReport printed = report;
            cleanup.report(() -> print(out, printed));
        } finally {
            scope.close();
        }
        return report.conforms() ? GovernanceCli.EXIT_OK : GovernanceCli.EXIT_VERIFICATION_FAILED;
    }

    /** The reason a signal stops the run with, in the messages of the rules it cut short. */
    static final String STOPPED_BY = "by a signal: SIGTERM or SIGINT";

    private void print(PrintWriter out, TckReport report) {
        out.print(json ? Json.write(TckReportPrinter.json(report)) + System.lineSeparator() : TckReportPrinter.text(report));
        out.flush();
    }

    /** The rules named with {@code --rule} (ids in any case); empty means every rule. */
    private Set<Rule> rules() {
        Map<String, Rule> byId = new LinkedHashMap<>();
        for (Rule rule : Rule.values()) {
            byId.put(rule.id(), rule);
        }
        Set<Rule> only = EnumSet.noneOf(Rule.class);
        for (String id : rules) {
            Rule rule = byId.get(id.strip().toUpperCase(Locale.ROOT));
            if (rule == null) {
                throw invalid("--rule", "'" + id + "' is not a rule id; valid ids: " + String.join(", ", byId.keySet()));
            }
            only.add(rule);
        }
        return only;
    }

    /** The kit's system properties for the options given; absent options keep what the JVM has. */
    private Map<String, String> settings() {
        Map<String, String> settings = new LinkedHashMap<>();
        put(settings, TckSettings.TRIES, tries, "--tries");
        put(settings, TckSettings.WRITE_TRIES, writeTries, "--write-tries");
        put(settings, TckSettings.ROWS, rows, "--rows");
        put(settings, TckSettings.RULE_TIMEOUT_S, ruleTimeout, "--rule-timeout-s");
        put(settings, TckSettings.RUN_TIMEOUT_S, runTimeout, "--run-timeout-s");
        return settings;
    }

    private void put(Map<String, String> settings, String key, Integer value, String option) {
        if (value != null) {
            require(value >= 1, option, "must be at least 1 but was " + value);
            settings.put(key, value.toString());
        }
    }

    private Path reportsDir() {
        if (junitXml == null) {
            return null;
        }
        DirOption.require(spec, "--junit-xml", junitXml);
        try {
            return Files.createDirectories(junitXml).toAbsolutePath();
        } catch (IOException e) {
            throw invalid("--junit-xml", "cannot create directory '" + junitXml + "': " + e);
        }
    }

    private VendorClassPath vendorClassPath() {
        try {
            return VendorClassPath.parse(classPath, GovernanceCli.class.getClassLoader());
        } catch (IllegalArgumentException e) {
            throw invalid("--classpath", e.getMessage());
        }
    }

    /** Fails as a bad argument before the kit starts; the runner would fail the same way, later. */
    private void checkProvider(ClassLoader loader) {
        try {
            Providers.load(provider, loader);
        } catch (IllegalArgumentException e) {
            // Not found: if an engine add-on brings it, name the archive rather than list the others.
            Optional<AddOn> addOn = AddOn.named(provider).filter(a -> !a.present());
            throw invalid("--provider", addOn.map(a -> a.missing("provider '" + provider + "'")).orElse(e.getMessage()));
        }
    }

    private String startLine(Set<Rule> only, TckSettings settings) {
        int count = only.isEmpty() ? Rule.values().length : only.size();
        return "tck: " + count + (count == 1 ? " rule" : " rules") + " against provider '" + provider + "' (tries " + settings.tries()
                + ", write tries " + settings.writeTries() + ", rows " + settings.rows() + ") ...";
    }

    private void require(boolean ok, String option, String message) {
        if (!ok) {
            throw invalid(option, message);
        }
    }

    private ParameterException invalid(String option, String message) {
        return new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + message);
    }
}
