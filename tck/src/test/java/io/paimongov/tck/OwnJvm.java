package io.paimongov.tck;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs one rule, alone or in a full run, against one discovered provider in a JVM of its own, for
 * the broken providers whose fault can crash a JVM: pages whose content changes under Paimon,
 * which reads its pages without bounds checks, can send a read outside the heap. A crashed child says nothing about the
 * rule, so the run is made again, up to {@value #ATTEMPTS} times; a crash is never taken for a
 * pass or a failure.
 */
final class OwnJvm {

    private static final String MARK = "tck-own-jvm-result ";
    private static final int ATTEMPTS = 4;

    private OwnJvm() {}

    /**
     * The child: runs the rule (with a third argument {@code all}, every rule) and prints the rule's
     * status and message on one marked line.
     */
    public static void main(String[] args) {
        Rule rule = Rule.byId(args[1]).orElseThrow();
        Set<Rule> rules = args.length > 2 && args[2].equals("all") ? Set.of() : Set.of(rule);
        TckReport.RuleResult r = TckRunner.runDiscovered(args[0], OwnJvm.class.getClassLoader(), rules, null).rule(rule.id());
        String message = Base64.getEncoder().encodeToString(String.valueOf(r.message()).getBytes(StandardCharsets.UTF_8));
        System.out.println(MARK + r.status() + " " + message);
        System.out.flush();
        System.exit(0);
    }

    /** {@code rule} run alone against {@code provider} in a child JVM with this JVM's class path and kit settings. */
    static TckReport.RuleResult run(String provider, Rule rule) throws IOException, InterruptedException {
        return run(provider, rule, false);
    }

    /** {@code rule}'s result when the whole kit runs against {@code provider} in a child JVM. */
    static TckReport.RuleResult runInFullRun(String provider, Rule rule) throws IOException, InterruptedException {
        return run(provider, rule, true);
    }

    private static TckReport.RuleResult run(String provider, Rule rule, boolean everyRule) throws IOException, InterruptedException {
        List<String> outputs = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Process child = start(provider, rule, everyRule);
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!child.waitFor(everyRule ? 120 : 20, TimeUnit.MINUTES)) {
                child.destroyForcibly();
            }
            for (String line : out.split("\n")) {
                int at = line.indexOf(MARK);
                if (at >= 0) {
                    String[] parts = line.substring(at + MARK.length()).trim().split(" ", 2);
                    String message = new String(Base64.getDecoder().decode(parts.length > 1 ? parts[1] : ""), StandardCharsets.UTF_8);
                    return new TckReport.RuleResult(rule.id(), rule.required(), TckReport.Status.valueOf(parts[0]), message, 0, Map.of());
                }
            }
            outputs.add("attempt " + attempt + " ended with " + child.exitValue() + ": ..." + out.substring(Math.max(0, out.length() - 2000)));
        }
        throw new AssertionError(provider + " on " + rule.id() + ": every child JVM ended without a result\n" + String.join("\n", outputs));
    }

    private static Process start(String provider, Rule rule, boolean everyRule) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("-Xmx") || a.startsWith("--add-opens"))
                .toList());
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("governance."))
                .sorted()
                .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
        // A crash report goes to the temp directory, not into the module being built.
        command.add("-XX:ErrorFile=" + Path.of(System.getProperty("java.io.tmpdir"), "tck-own-jvm-hs_err_pid%p.log"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(OwnJvm.class.getName());
        command.add(provider);
        command.add(rule.id());
        if (everyRule) {
            command.add("all");
        }
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }
}
