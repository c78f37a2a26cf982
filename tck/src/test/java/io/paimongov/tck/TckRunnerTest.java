package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The runner's time limit and its reports, against providers of the kit's own tests. */
class TckRunnerTest {

    @TempDir Path reports;

    @AfterAll
    static void releaseTheStuckThreads() throws InterruptedException {
        BrokenProvidersTest.letTheHungRulesGo();
    }

    /**
     * MEM-4 hangs in allocate; the run times it out at the limit given with the stuck thread's
     * stack, goes on with MEM-3 (which reserves bytes only, so it does not meet the hang), and still
     * writes the report of both. The stuck thread is let go and waited for at the end, so that it
     * does not run on into the next test's rules (jqwik's stores are the JVM's).
     */
    @Test
    void aHungRuleTimesOutWithTheStuckStacksAndTheRunGoesOn() throws Exception {
        TckReport report = withProperty(TckSettings.RULE_TIMEOUT_S, "3",
                () -> TckRunner.runDiscovered("broken-blocks-forever", getClass().getClassLoader(), Set.of(Rule.MEM_3, Rule.MEM_4), reports));

        TckReport.RuleResult hung = report.rule("MEM-4");
        assertEquals(TckReport.Status.TIMED_OUT, hung.status());
        String m = hung.message();
        assertTrue(m.startsWith("[MEM-4] did not finish within 3 s (its time limit; governance.tck.rule-timeout-s sets every rule's)"), m);
        assertTrue(m.lines().findFirst().orElseThrow().endsWith("contract: docs/spi.md ALLOC.3, LOCK.2)"), m);
        assertTrue(m.contains("\"tck-rule-MEM-4\"") && m.contains("BrokenProviders$BlocksForever"), m);
        assertTrue(hung.millis() >= 3000, "ran " + hung.millis() + " ms");
        assertEquals(TckReport.Status.PASSED, report.rule("MEM-3").status(), report.rule("MEM-3").message());
        assertEquals(TckReport.Ending.COMPLETED, report.ending());
        assertTrue(!report.conforms() && report.failures() == 1, report.toString());

        Document xml = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(reports.resolve("TEST-tck.memory.xml").toFile());
        NodeList cases = xml.getElementsByTagName("testcase");
        assertEquals(2, cases.getLength());
        Element passed = (Element) cases.item(0);
        Element failed = (Element) cases.item(1);
        assertEquals("memory", failed.getAttribute("classname"));
        assertEquals("MEM-3", passed.getAttribute("name"));
        assertEquals("MEM-4", failed.getAttribute("name"));
        assertEquals(m, failed.getElementsByTagName("failure").item(0).getTextContent());
        assertEquals(0, passed.getElementsByTagName("failure").getLength());
        // The settings the run had: a rule limit below the rules' own is recorded and weakens nothing.
        java.util.Map<String, String> properties = new java.util.HashMap<>();
        NodeList props = xml.getElementsByTagName("property");
        for (int i = 0; i < props.getLength(); i++) {
            Element p = (Element) props.item(i);
            properties.put(p.getAttribute("name"), p.getAttribute("value"));
        }
        assertEquals("broken-blocks-forever", properties.get("provider"));
        assertEquals("false", properties.get("weakened"));
        assertEquals("3", properties.get(TckSettings.RULE_TIMEOUT_S));
        assertEquals("each rule's own: 60 s", properties.get(TckSettings.RULE_TIMEOUT_S + ".default"));
        assertEquals(report.settings().size(), properties.keySet().stream().filter(k -> k.endsWith(".default")).count());
        assertTrue(report.weakened().isEmpty(), report.settings().toString());
        try (var files = Files.list(reports)) {
            assertEquals(List.of("TEST-tck.memory.xml"), files.map(p -> p.getFileName().toString()).toList());
        }
        BrokenProvidersTest.letTheHungRulesGo();
    }

    /**
     * The run's own limit: MEM-4 hangs until the run's 4 s pass (its own limit is a minute), and
     * MEM-9, still to come, is reported not run; the report says the run's limit ended it.
     */
    @Test
    void theRunsLimitEndsTheHungRuleAndReportsTheRestNotRun() throws Exception {
        TckReport report;
        try {
            report = withProperty(TckSettings.RUN_TIMEOUT_S, "4",
                    () -> TckRunner.runDiscovered("broken-blocks-forever", getClass().getClassLoader(), Set.of(Rule.MEM_3, Rule.MEM_4, Rule.MEM_9), null));
        } finally {
            BrokenProvidersTest.letTheHungRulesGo();
        }

        assertEquals(TckReport.Ending.RUN_TIMEOUT, report.ending());
        assertEquals(List.of("MEM-3", "MEM-4", "MEM-9"), report.rules().stream().map(TckReport.RuleResult::id).toList());
        assertEquals(TckReport.Status.PASSED, report.rule("MEM-3").status(), report.rule("MEM-3").message());
        TckReport.RuleResult hung = report.rule("MEM-4");
        assertEquals(TckReport.Status.TIMED_OUT, hung.status());
        assertTrue(hung.message().startsWith("[MEM-4] did not finish before the run's time limit of 4 s (governance.tck.run-timeout-s) passed"),
                hung.message());
        TckReport.RuleResult never = report.rule("MEM-9");
        assertEquals(TckReport.Status.NOT_RUN, never.status());
        assertEquals("[MEM-9] not run: the run's time limit of 4 s (governance.tck.run-timeout-s) passed before it started", never.message());
        assertTrue(!report.conforms(), report.toString());
    }

    /**
     * A run stopped from another thread while a rule hangs: the hung rule times out at once with
     * the reason and the stacks, the rules not started are not run, and the runner returns.
     */
    @Test
    void aStoppedRunReportsTheRunningRuleTimedOutAndTheRestNotRun() throws Exception {
        List<String> ended = new java.util.concurrent.CopyOnWriteArrayList<>();
        TckProgress progress = new TckProgress(r -> ended.add(r.id() + " " + r.status()));
        Thread stopper = new Thread(() -> {
            // Stop once MEM-4 is stuck in the provider: its snapshot then shows it running.
            try {
                while (progress.snapshot().rules().stream()
                        .noneMatch(r -> r.id().equals("MEM-4") && r.message().contains("BrokenProviders$BlocksForever"))) {
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                return;
            }
            progress.stop("a test stopped it");
        }, "tck-test-stopper");
        stopper.setDaemon(true);
        stopper.start();
        TckReport report;
        try {
            report = TckRunner.runDiscovered("broken-blocks-forever", getClass().getClassLoader(), Set.of(Rule.MEM_3, Rule.MEM_4, Rule.MEM_9), null,
                    progress);
        } finally {
            BrokenProvidersTest.letTheHungRulesGo();
        }

        assertEquals(TckReport.Ending.STOPPED, report.ending());
        assertEquals(TckReport.Status.PASSED, report.rule("MEM-3").status());
        String m = report.rule("MEM-4").message();
        assertEquals(TckReport.Status.TIMED_OUT, report.rule("MEM-4").status(), m);
        assertTrue(m.startsWith("[MEM-4] still running after ") && m.contains(" s when the run was stopped (a test stopped it)"), m);
        assertTrue(m.contains("\"tck-rule-MEM-4\"") && m.contains("BrokenProviders$BlocksForever"), m);
        assertEquals(TckReport.Status.NOT_RUN, report.rule("MEM-9").status());
        assertEquals(List.of("MEM-3 PASSED", "MEM-4 TIMED_OUT", "MEM-9 NOT_RUN"), ended);
    }

    /** A limit given as a system property for one run, put back after it. */
    private static <T> T withProperty(String key, String value, java.util.function.Supplier<T> run) {
        String before = System.getProperty(key);
        System.setProperty(key, value);
        try {
            return run.get();
        } finally {
            if (before == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, before);
            }
        }
    }

    /** A failed property keeps jqwik's samples, in the report and in the XML, to reproduce it. */
    @Test
    void aFailedPropertyKeepsItsSamplesAndSeed() throws Exception {
        TckReport report = TckRunner.runDiscovered("broken-aliasing", getClass().getClassLoader(), Set.of(Rule.MEM_5), reports);

        TckReport.RuleResult r = report.rule("MEM-5");
        assertEquals(TckReport.Status.FAILED, r.status());
        String samples = r.reported().get("samples");
        assertTrue(samples != null && samples.contains("Sample") && samples.contains("count"), String.valueOf(r.reported()));
        assertTrue(r.reported().containsKey("seed"), String.valueOf(r.reported()));
        Document xml = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(reports.resolve("TEST-tck.memory.xml").toFile());
        String out = xml.getElementsByTagName("system-out").item(0).getTextContent();
        assertTrue(out.contains("seed = " + r.reported().get("seed")) && out.contains(samples), out);
    }

    /** What the provider throws is the rule's failure, first line the rule id, with the causes. */
    @Test
    void anExceptionOfTheProviderFailsTheRuleUnderItsId() {
        Throwable thrown = new IllegalStateException("engine refused", new java.io.IOException("quota"));
        String line = TckRunner.ruleLine(Rule.MEM_4, TckReport.Status.FAILED, thrown);
        String first = line.substring(0, line.indexOf('\n'));
        assertEquals(Rule.MEM_4.fail("threw java.lang.IllegalStateException: engine refused; caused by java.io.IOException: quota"), first);
        assertTrue(line.contains("at io.paimongov.tck.TckRunnerTest.anExceptionOfTheProviderFailsTheRuleUnderItsId"), line);
        // The kit's own failures keep their line.
        AssertionError kit = new AssertionError(Rule.MEM_4.fail("allocate(5 pages) with room for 2 did not throw"));
        assertEquals(kit.getMessage(), TckRunner.ruleLine(Rule.MEM_4, TckReport.Status.FAILED, kit));
    }

    @Test
    void everyRuleHasOneOfTheEightSubjects() {
        Set<String> subjects = Set.of("memory", "write", "spill", "cancel", "metrics", "discovery", "compaction", "read");
        for (Rule rule : Rule.values()) {
            assertTrue(subjects.contains(rule.subject()), rule.id() + ": " + rule.subject());
            assertTrue(rule.id().toLowerCase(java.util.Locale.ROOT).startsWith(rule.subject().substring(0, 3)), rule.id());
        }
    }
    /**
     * A passing rule whose provider prints to both streams and logs a warning with a stack trace:
     * the console gets none of it, the rule's result and its JUnit XML get all of it.
     */
    @Test
    void whatARulePrintsGoesIntoItsResultNotTheConsole() throws Exception {
        java.io.ByteArrayOutputStream console = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = System.out;
        java.io.PrintStream err = System.err;
        java.io.PrintStream into = new java.io.PrintStream(console, true, java.nio.charset.StandardCharsets.UTF_8);
        TckReport report;
        System.setOut(into);
        System.setErr(into);
        try {
            report = TckRunner.runDiscovered("noisy", getClass().getClassLoader(), Set.of(Rule.MEM_3), reports);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        TckReport.RuleResult result = report.rule("MEM-3");
        assertEquals(TckReport.Status.PASSED, result.status(), result.message());
        String printed = console.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(!printed.contains(NoisyProvider.LINE), "printed on the console: " + printed);
        for (String expected : List.of(NoisyProvider.LINE + " (out)", NoisyProvider.LINE + " (err)", NoisyProvider.LINE + " (log)",
                "java.lang.IllegalStateException: an expected fault")) {
            assertTrue(result.output().contains(expected), "not in the rule's output: " + expected + "; output: " + result.output());
        }
        String xml = Files.readString(reports.resolve("TEST-tck.memory.xml"));
        assertTrue(xml.contains("<system-err>") && xml.contains("an expected fault"), xml);
    }
    /** A subject's verification class runs that subject's rules and no other. */
    @Test
    void aSubjectsClassRunsItsRulesAlone() {
        TckReport report = TckRunner.run(ReferenceDiscovery.class, "reference", Set.of());
        assertEquals(List.of("DISCOVERY-1", "DISCOVERY-2", "DISCOVERY-3"), report.rules().stream().map(TckReport.RuleResult::id).toList());
        assertTrue(report.requiredPassed(), report.toString());
        TckReport.RuleResult other = TckRunner.run(ReferenceDiscovery.class, "reference", Set.of(Rule.MEM_3)).rule("MEM-3");
        assertEquals(TckReport.Status.FAILED, other.status());
        assertTrue(other.message().startsWith("[MEM-3] the rule did not run: "), other.message());
    }

    /** The DISCOVERY rules alone, against the reference provider. */
    public static final class ReferenceDiscovery extends DiscoveryVerification {
        public ReferenceDiscovery() {
            super(ReferenceProvider::new);
        }
    }
}
