package io.paimongov.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A kit run as it goes, for the program that started it ({@link TckRunner#runDiscovered(String,
 * ClassLoader, java.util.Collection, java.nio.file.Path, TckProgress)}): each rule's result as it
 * ends, the report as it stands at any moment ({@link #snapshot}), and a way to stop the run from
 * another thread ({@link #stop}) that still leaves a report. The command line stops the run on
 * SIGTERM and SIGINT and prints that report.
 *
 * <p>One progress per run. Thread-safe: the runner's thread reports into it, any thread may stop it
 * or take a snapshot. The listener given runs on the runner's thread, once per rule, and must not
 * throw.
 */
public final class TckProgress {

    private final Consumer<TckReport.RuleResult> listener;
    private volatile String stopReason;
    private String provider = "";
    private List<Rule> planned = List.of();
    private List<TckReport.Setting> settings = List.of();
    private final List<TckReport.RuleResult> done = new ArrayList<>();
    private Running running;

    /** The rule running now: its thread, when it started and what it printed so far. */
    private record Running(Rule rule, Thread thread, long startNanos, RuleOutput output) {}

    public TckProgress() {
        this(result -> {});
    }

    /** A progress that hands each rule's result to {@code listener} as the rule ends. */
    public TckProgress(Consumer<TckReport.RuleResult> listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Stops the run: the rule running now ends {@link TckReport.Status#TIMED_OUT} with the stacks of
     * the threads alive, the rules not started end {@link TckReport.Status#NOT_RUN}, and the runner
     * returns that report within about a tenth of a second ({@link TckReport.Ending#STOPPED}).
     * Idempotent: the first reason is kept. Does not block and does not throw.
     *
     * @param reason why, for the messages, such as {@code a signal (SIGTERM or SIGINT)}
     */
    public void stop(String reason) {
        synchronized (this) {
            if (stopReason == null) {
                stopReason = Objects.requireNonNull(reason, "reason");
            }
        }
    }

    /** Whether {@link #stop} was called. */
    public boolean stopped() {
        return stopReason != null;
    }

    /** Why the run was stopped; null while it was not. */
    String stopReason() {
        return stopReason;
    }

    /**
     * The report as it stands: the results of the rules that ended, the rule running now as {@link
     * TckReport.Status#TIMED_OUT} with the stacks of the threads alive (its thread first), the rules
     * not started as {@link TckReport.Status#NOT_RUN}; its ending is {@link TckReport.Ending#STOPPED}
     * unless every rule ended. For a program that must report now, whatever the runner is doing
     * (the command line after a signal, when the runner did not return in time).
     */
    public synchronized TckReport snapshot() {
        String why = stopReason == null ? "the report was asked for while the run went on" : "the run was stopped (" + stopReason + ")";
        List<TckReport.RuleResult> rules = new ArrayList<>(done);
        for (Rule rule : planned) {
            if (rules.stream().anyMatch(r -> r.id().equals(rule.id()))) {
                continue;
            }
            if (running != null && running.rule() == rule) {
                rules.add(stillRunning(rule, why, "", running.thread(), running.startNanos(), Map.of()).withOutput(running.output().text()));
            } else {
                rules.add(notRun(rule, why));
            }
        }
        rules.sort(java.util.Comparator.comparing(r -> Rule.byId(r.id()).orElseThrow()));
        boolean complete = rules.stream().noneMatch(r -> r.status() == TckReport.Status.NOT_RUN) && running == null;
        return new TckReport(provider, rules, complete ? TckReport.Ending.COMPLETED : TckReport.Ending.STOPPED, settings);
    }

    synchronized void plan(String provider, List<Rule> rules, List<TckReport.Setting> settings) {
        this.provider = provider;
        this.planned = List.copyOf(rules);
        this.settings = List.copyOf(settings);
    }

    synchronized void started(Rule rule, Thread thread, long startNanos, RuleOutput output) {
        running = new Running(rule, thread, startNanos, output);
    }

    void finished(TckReport.RuleResult result) {
        synchronized (this) {
            done.add(result);
            running = null;
        }
        listener.accept(result);
    }

    /**
     * A rule still running when {@code why}: {@link TckReport.Status#TIMED_OUT}, its line first (what
     * became of its thread, {@code then}, after the reason), then the stacks of the threads alive,
     * {@code thread}'s first.
     */
    static TckReport.RuleResult stillRunning(Rule rule, String why, String then, Thread thread, long startNanos, Map<String, String> reported) {
        long millis = (System.nanoTime() - startNanos) / 1_000_000;
        String line = rule.timedOut("still running after " + millis / 1000 + " s when " + why + then);
        return timedOut(rule, line, thread, millis, reported);
    }

    /** A rule that timed out: {@code line}, then the stacks of the threads alive, {@code thread}'s first. */
    static TckReport.RuleResult timedOut(Rule rule, String line, Thread thread, long millis, Map<String, String> reported) {
        String message = line + "\nThreads alive then, the rule's first:\n" + ThreadStacks.of(thread);
        return new TckReport.RuleResult(rule.id(), rule.required(), TckReport.Status.TIMED_OUT, message, millis, reported);
    }

    /** A rule that never started because {@code why}. */
    static TckReport.RuleResult notRun(Rule rule, String why) {
        return new TckReport.RuleResult(rule.id(), rule.required(), TckReport.Status.NOT_RUN, "[" + rule.id() + "] not run: " + why
                + " before it started", 0, Map.of());
    }
}
