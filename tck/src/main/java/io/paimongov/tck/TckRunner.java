package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.Providers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.opentest4j.TestAbortedException;

/**
 * Runs the kit through the JUnit Platform launcher and reports rule by rule: against a {@link
 * GovernanceVerification} subclass, or against a provider found by name with {@link
 * java.util.ServiceLoader} (also in a vendor's jar, through the class loader given). Each rule runs
 * through a launcher of its own on a daemon thread, under a time limit sized to it and the run's
 * ({@link TimeLimits}): a rule past it times out with the stacks of the live threads and the run
 * goes on; once the run's limit passed, or the run was stopped ({@link TckProgress#stop}), the
 * rules left are reported not run. Every failure message starts with its rule id. What a rule prints while it runs (the
 * logs of the faults it causes on purpose) is kept in its result ({@link RuleOutput}), not printed.
 * With a reports directory it writes JUnit XML ({@link TckXml}).
 *
 * <p>Not thread-safe: one run at a time per JVM (a discovered provider's class is handed to the
 * verification through a static slot; every rule makes its own instances of it).
 */
public final class TckRunner {

    private TckRunner() {}

    /**
     * Runs every rule {@code verification} holds ({@link GovernanceVerification}: all; a subject's
     * class such as {@link MemoryVerification}: that subject's), or only {@code only} when it is not
     * empty; a rule asked for that the class does not hold fails as not run.
     */
    public static TckReport run(Class<? extends TckBase> verification, String provider, Collection<Rule> only) {
        return run(verification, provider, only, null, new TckProgress());
    }

    /**
     * Runs the kit against the provider named {@code name} that {@code loader} finds; capabilities
     * are taken from the provider's standalone engine.
     *
     * @param reportsDir where to write JUnit XML reports, or null
     */
    public static TckReport runDiscovered(String name, ClassLoader loader, Collection<Rule> only, Path reportsDir) {
        return runDiscovered(name, loader, only, reportsDir, new TckProgress());
    }

    /**
     * As {@link #runDiscovered(String, ClassLoader, Collection, Path)}, reporting each rule to {@code
     * progress} as it ends; {@link TckProgress#stop} ends the run early with a report of what ran.
     */
    public static TckReport runDiscovered(String name, ClassLoader loader, Collection<Rule> only, Path reportsDir, TckProgress progress) {
        GovernanceProvider provider = Providers.load(name, loader);
        Thread current = Thread.currentThread();
        ClassLoader previous = current.getContextClassLoader();
        current.setContextClassLoader(loader);
        DiscoveredVerification.target = DiscoveredVerification.freshInstancesOf(provider, loader);
        try {
            return run(DiscoveredVerification.class, provider.name(), only, reportsDir, progress);
        } finally {
            DiscoveredVerification.target = null;
            current.setContextClassLoader(previous);
        }
    }

    private static TckReport run(
            Class<? extends TckBase> verification, String provider, Collection<Rule> only, Path reportsDir, TckProgress progress) {
        TckSettings settings = TckSettings.fromSystemProperties();
        // Every rule the class holds (one subject's class holds that subject's), or those asked for.
        Map<Rule, Optional<Method>> plan = new EnumMap<>(Rule.class);
        for (Rule rule : Rule.values()) {
            Optional<Method> method = methodFor(verification, rule);
            if (only.isEmpty() ? method.isPresent() : only.contains(rule)) {
                plan.put(rule, method);
            }
        }
        List<TckReport.Setting> inForce = SettingsInForce.of(settings, plan.keySet());
        progress.plan(provider, List.copyOf(plan.keySet()), inForce);
        long runLimit = TimeLimits.runSeconds(plan.values().stream().flatMap(Optional::stream).toList(), settings);
        long runDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(runLimit);
        // jqwik keeps failed tries in a database it replays next time; a run must replay nothing from
        // an earlier one (another provider's samples), so the database lives only as long as the run.
        Path jqwikDir = temporaryDirectory();
        List<TckReport.RuleResult> results = new ArrayList<>();
        TckReport.Ending ending = TckReport.Ending.COMPLETED;
        try {
            for (Map.Entry<Rule, Optional<Method>> entry : plan.entrySet()) {
                Rule rule = entry.getKey();
                TckReport.RuleResult result;
                if (progress.stopped()) {
                    ending = TckReport.Ending.STOPPED;
                    result = TckProgress.notRun(rule, "the run was stopped (" + progress.stopReason() + ")");
                } else if (System.nanoTime() - runDeadline >= 0) {
                    ending = TckReport.Ending.RUN_TIMEOUT;
                    result = TckProgress.notRun(rule, "the run's time limit of " + runLimit + " s (" + TckSettings.RUN_TIMEOUT_S + ") passed");
                } else if (entry.getValue().isEmpty()) {
                    result = failed(rule, "the rule did not run: " + verification.getName() + " has no method for it", System.nanoTime());
                } else {
                    Method method = entry.getValue().get();
                    long ruleLimit = TimeLimits.ruleSeconds(rule, method, settings);
                    try (RuleOutput output = RuleOutput.capture()) {
                        result = runOne(verification, method, rule, jqwikDir, new Limits(ruleLimit, runLimit, runDeadline), output, progress);
                        result = result.withOutput(output.text());
                    }
                    if (result.status() == TckReport.Status.TIMED_OUT) {
                        ending = progress.stopped() ? TckReport.Ending.STOPPED
                                : System.nanoTime() - runDeadline >= 0 ? TckReport.Ending.RUN_TIMEOUT : ending;
                    }
                }
                results.add(result);
                progress.finished(result);
            }
        } finally {
            TckSubject.deleteTree(jqwikDir);
        }
        TckReport report = new TckReport(provider, results, ending, inForce);
        if (reportsDir != null) {
            TckXml.write(report, reportsDir);
        }
        return report;
    }

    /** A rule's own time limit, and the run's with the moment it passes ({@link System#nanoTime}). */
    private record Limits(long ruleSeconds, long runSeconds, long runDeadline) {}

    /** How often the runner looks whether the rule ended or the run was stopped while it waits. */
    private static final long POLL_MILLIS = 100;

    /**
     * Runs one rule through its own launcher on a thread of its own and waits for it at most its
     * limit, and no later than the run's. A rule still running then, or when the run is stopped,
     * times out with the stacks of the threads alive; its thread is interrupted and left behind (a
     * daemon), and the run goes on with the next rule.
     */
    private static TckReport.RuleResult runOne(
            Class<? extends TckBase> verification, Method method, Rule rule, Path jqwikDir, Limits limits, RuleOutput output,
            TckProgress progress) {
        LauncherDiscoveryRequest discovery = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectMethod(verification, method))
                .configurationParameter("jqwik.database", jqwikDir.resolve("jqwik-database").toString())
                .configurationParameter("jqwik.reporting.usejunitplatform", "true")
                .build();
        Collector collector = new Collector();
        AtomicReference<Throwable> crashed = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                LauncherFactory.create().execute(discovery, collector);
            } catch (Throwable t) {
                crashed.set(t);
            }
        }, "tck-rule-" + rule.id());
        runner.setDaemon(true);
        long start = System.nanoTime();
        long ruleDeadline = start + TimeUnit.SECONDS.toNanos(limits.ruleSeconds());
        boolean runLimitFirst = limits.runDeadline() - ruleDeadline < 0;
        long deadline = runLimitFirst ? limits.runDeadline() : ruleDeadline;
        progress.started(rule, runner, start, output);
        runner.start();
        String stoppedBy = null;
        while (runner.isAlive() && stoppedBy == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                runner.join(Math.min(POLL_MILLIS, Math.floorDiv(left, 1_000_000) + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                progress.stop("the runner's thread was interrupted");
            }
            stoppedBy = progress.stopReason();
        }
        if (runner.isAlive()) {
            Map<String, String> reported = collector.reported.getOrDefault(rule, Map.of());
            TckReport.RuleResult result;
            if (stoppedBy != null) {
                result = TckProgress.stillRunning(rule, "the run was stopped (" + stoppedBy + ")", "; it was interrupted and left behind", runner,
                        start, reported);
            } else {
                long millis = (System.nanoTime() - start) / 1_000_000;
                String what = runLimitFirst
                        ? "did not finish before the run's time limit of " + limits.runSeconds() + " s (" + TckSettings.RUN_TIMEOUT_S
                                + ") passed, after " + millis / 1000 + " s"
                        : "did not finish within " + limits.ruleSeconds() + " s (its time limit; " + TckSettings.RULE_TIMEOUT_S
                                + " sets every rule's)";
                result = TckProgress.timedOut(rule, rule.timedOut(what + "; it was interrupted and left behind"), runner, millis, reported);
            }
            runner.interrupt();
            return result;
        }
        if (crashed.get() != null) {
            return failed(rule, "the JUnit Platform launcher failed: " + ThreadStacks.causes(crashed.get()), start);
        }
        TckReport.RuleResult r = collector.results.get(rule);
        return r != null ? r : failed(rule, "the rule did not run", start);
    }

    private static TckReport.RuleResult failed(Rule rule, String what, long startNanos) {
        return new TckReport.RuleResult(rule.id(), rule.required(), TckReport.Status.FAILED, rule.fail(what),
                (System.nanoTime() - startNanos) / 1_000_000, Map.of());
    }

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "paimon-gov-tck-jqwik-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The rule's method among the verification's: each subject's rules are default methods of its interface. */
    private static Optional<Method> methodFor(Class<?> type, Rule rule) {
        for (Method m : type.getMethods()) {
            Verifies v = m.getAnnotation(Verifies.class);
            if (v != null && v.value() == rule) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    private static Optional<Rule> ruleOf(TestIdentifier id) {
        return id.getSource()
                .filter(MethodSource.class::isInstance)
                .map(MethodSource.class::cast)
                .flatMap(source -> {
                    try {
                        return Optional.ofNullable(source.getJavaMethod().getAnnotation(Verifies.class)).map(Verifies::value);
                    } catch (RuntimeException e) {
                        return Optional.empty();
                    }
                });
    }

    /**
     * Puts the rule's own line first: jqwik wraps a failed action chain's message after the list of
     * actions that led to it, which then follows.
     */
    static String leadWithRule(Rule rule, String message) {
        String tag = "[" + rule.id() + "] ";
        int at = message.indexOf(tag);
        if (at <= 0) {
            return message;
        }
        int end = message.indexOf('\n', at);
        String line = end < 0 ? message.substring(at) : message.substring(at, end);
        return line + "\n" + message.substring(0, at).trim();
    }

    /**
     * The failure or skip message of {@code rule}, its own line first; a throwable that is not the
     * kit's (the provider or the runtime threw) becomes the rule's failure naming it and its causes.
     */
    static String ruleLine(Rule rule, TckReport.Status status, Throwable t) {
        String message = String.valueOf(t.getMessage());
        if (status != TckReport.Status.FAILED || message.contains("[" + rule.id() + "] ")) {
            return leadWithRule(rule, message) + cleanupFailures(t);
        }
        return rule.fail("threw " + ThreadStacks.causes(t)) + "\n" + stackOf(t);
    }

    /**
     * What failed after the verdict, when the rule's cleanup also threw (a provider's leak error at
     * close): each on a line of its own after the message, which stays the first failure's.
     */
    private static String cleanupFailures(Throwable t) {
        StringBuilder out = new StringBuilder();
        int depth = 0;
        for (Throwable c = t; c != null && depth < 20; c = c.getCause() == c ? null : c.getCause(), depth++) {
            for (Throwable s : c.getSuppressed()) {
                out.append("\nthen the cleanup failed too (suppressed): ").append(ThreadStacks.causes(s));
            }
        }
        return out.toString();
    }

    private static String stackOf(Throwable t) {
        java.io.StringWriter out = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    /** Collects one result per rule from the platform's events. */
    private static final class Collector implements TestExecutionListener {
        final Map<Rule, TckReport.RuleResult> results = new EnumMap<>(Rule.class);
        final Map<Rule, Map<String, String>> reported = new ConcurrentHashMap<>();

        /**
         * Keeps what a rule's property reported: jqwik's summary table (tries, checks, seed, ...)
         * parsed into its names and values, and values the kit publishes itself.
         */
        @Override
        public void reportingEntryPublished(TestIdentifier id, org.junit.platform.engine.reporting.ReportEntry entry) {
            ruleOf(id).ifPresent(rule -> {
                Map<String, String> into = reported.computeIfAbsent(rule, r -> new java.util.concurrent.ConcurrentSkipListMap<>());
                entry.getKeyValuePairs().forEach((key, value) -> {
                    if (value.contains("jqwik")) {
                        int samples = value.indexOf("Shrunk Sample");
                        if (samples < 0) {
                            samples = value.indexOf("Original Sample");
                        }
                        String table = samples < 0 ? value : value.substring(0, samples);
                        table.lines()
                                .map(line -> line.split("\\|")[0])
                                .filter(cell -> cell.contains("="))
                                .forEach(cell -> into.put(cell.substring(0, cell.indexOf('=')).strip(), cell.substring(cell.indexOf('=') + 1).strip()));
                        if (samples >= 0) {
                            into.put("samples", value.substring(samples).strip());
                        }
                    } else {
                        into.put(key, value);
                    }
                });
            });
        }
        private final Map<String, Long> started = new ConcurrentHashMap<>();

        @Override
        public void executionStarted(TestIdentifier id) {
            started.put(id.getUniqueId(), System.nanoTime());
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            ruleOf(id).ifPresent(rule -> results.put(rule, new TckReport.RuleResult(rule.id(), rule.required(), TckReport.Status.SKIPPED, reason, 0, Map.of())));
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            Optional<Rule> found = ruleOf(id);
            if (found.isEmpty()) {
                return;
            }
            Rule rule = found.get();
            long millis = (System.nanoTime() - started.getOrDefault(id.getUniqueId(), System.nanoTime())) / 1_000_000;
            Throwable t = result.getThrowable().orElse(null);
            // A required rule that was skipped fails a JUnit run (RequiredRules); here it is the skip it is.
            TckReport.Status status =
                    switch (result.getStatus()) {
                        case SUCCESSFUL -> TckReport.Status.PASSED;
                        case ABORTED -> TckReport.Status.SKIPPED;
                        case FAILED -> t instanceof TestAbortedException || t instanceof RequiredRuleSkipped
                                ? TckReport.Status.SKIPPED : TckReport.Status.FAILED;
                    };
            String message = t == null ? "" : t instanceof RequiredRuleSkipped skipped ? skipped.skipLine() : ruleLine(rule, status, t);
            results.put(rule, new TckReport.RuleResult(rule.id(), rule.required(), status, message, millis, reported.getOrDefault(rule, Map.of())));
        }
    }

}
