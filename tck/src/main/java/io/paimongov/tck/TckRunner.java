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
 * through a launcher of its own on a daemon thread, under the time limit {@link
 * TckSettings#RULE_TIMEOUT_S}: a rule past it fails with the stacks of the live threads and the run
 * goes on. Every failure message starts with its rule id. What a rule prints while it runs (the
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
        return run(verification, provider, only, null);
    }

    /**
     * Runs the kit against the provider named {@code name} that {@code loader} finds; capabilities
     * are taken from the provider's standalone engine.
     *
     * @param reportsDir where to write JUnit XML reports, or null
     */
    public static TckReport runDiscovered(String name, ClassLoader loader, Collection<Rule> only, Path reportsDir) {
        GovernanceProvider provider = Providers.load(name, loader);
        Thread current = Thread.currentThread();
        ClassLoader previous = current.getContextClassLoader();
        current.setContextClassLoader(loader);
        DiscoveredVerification.target = DiscoveredVerification.freshInstancesOf(provider, loader);
        try {
            return run(DiscoveredVerification.class, provider.name(), only, reportsDir);
        } finally {
            DiscoveredVerification.target = null;
            current.setContextClassLoader(previous);
        }
    }

    private static TckReport run(
            Class<? extends TckBase> verification, String provider, Collection<Rule> only, Path reportsDir) {
        // jqwik keeps failed tries in a database it replays next time; a run must replay nothing from
        // an earlier one (another provider's samples), so the database lives only as long as the run.
        Path jqwikDir = temporaryDirectory();
        long timeoutSeconds = TckSettings.fromSystemProperties().ruleTimeoutSeconds();
        List<TckReport.RuleResult> results = new ArrayList<>();
        try {
            for (Rule rule : Rule.values()) {
                Optional<Method> method = methodFor(verification, rule);
                // Every rule the class holds (one subject's class holds that subject's), or those asked for.
                if (only.isEmpty() ? method.isEmpty() : !only.contains(rule)) {
                    continue;
                }
                if (method.isEmpty()) {
                    results.add(failed(rule, "the rule did not run: " + verification.getName() + " has no method for it", System.nanoTime()));
                    continue;
                }
                TckReport.RuleResult result;
                String printed;
                try (RuleOutput output = RuleOutput.capture()) {
                    result = runOne(verification, method.get(), rule, jqwikDir, timeoutSeconds);
                    printed = output.text();
                }
                results.add(result.withOutput(printed));
            }
        } finally {
            TckSubject.deleteTree(jqwikDir);
        }
        TckReport report = new TckReport(provider, results);
        if (reportsDir != null) {
            TckXml.write(report, reportsDir);
        }
        return report;
    }

    /**
     * Runs one rule through its own launcher on a thread of its own and waits for it at most
     * {@code timeoutSeconds}. A rule still running then fails with the stacks of the threads alive,
     * its thread is interrupted and left behind (a daemon), and the run goes on with the next rule.
     */
    private static TckReport.RuleResult runOne(
            Class<? extends TckBase> verification, Method method, Rule rule, Path jqwikDir, long timeoutSeconds) {
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
        runner.start();
        try {
            runner.join(TimeUnit.SECONDS.toMillis(timeoutSeconds));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            runner.interrupt();
            return failed(rule, "the run was interrupted while the rule ran", start);
        }
        if (runner.isAlive()) {
            String stacks = ThreadStacks.of(runner);
            runner.interrupt();
            return failed(rule, "did not finish within " + timeoutSeconds + " s (" + TckSettings.RULE_TIMEOUT_S
                    + "); it was interrupted and left behind. Threads alive at the timeout, the rule's first:\n" + stacks, start);
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
            return leadWithRule(rule, message);
        }
        return rule.fail("threw " + ThreadStacks.causes(t)) + "\n" + stackOf(t);
    }

    private static String stackOf(Throwable t) {
        java.io.StringWriter out = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    /** Collects one result per rule from the platform's events. */
    private static final class Collector implements TestExecutionListener {
        final Map<Rule, TckReport.RuleResult> results = new EnumMap<>(Rule.class);
        private final Map<Rule, Map<String, String>> reported = new ConcurrentHashMap<>();

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
            TckReport.Status status =
                    switch (result.getStatus()) {
                        case SUCCESSFUL -> TckReport.Status.PASSED;
                        case ABORTED -> TckReport.Status.SKIPPED;
                        case FAILED -> t instanceof TestAbortedException ? TckReport.Status.SKIPPED : TckReport.Status.FAILED;
                    };
            String message = t == null ? "" : ruleLine(rule, status, t);
            results.put(rule, new TckReport.RuleResult(rule.id(), rule.required(), status, message, millis, reported.getOrDefault(rule, Map.of())));
        }
    }

}
