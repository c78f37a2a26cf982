package io.paimongov.reliability;

import io.paimongov.fixtures.ObservedProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.GovernanceProvider;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One iteration of the governance fuzzer: the {@link FuzzCase} of a seed run in this JVM. Its
 * writes start together on one standalone engine of the drawn provider, each on its own thread;
 * an events thread cancels the writes drawn to be cancelled once they passed their row, and lets
 * another consumer of the engine (a second set of resources from the same provider on the same
 * engine) take part of the engine's free memory and give it back later. The iteration waits for
 * every write up to a deadline, then {@link FuzzChecks} judges what happened.
 *
 * <p>Directories under the iteration's: {@code engine/} (the engine's temp space), {@code spill/}
 * (the spill root of providers that take {@code governance.spill.dirs}), {@code warehouse/}.
 *
 * <p>Not thread-safe: one thread runs an iteration; it starts and ends threads of its own.
 */
final class FuzzIteration {

    /** Per write, what it was told and how it ended; filled by {@link #run}. */
    final List<FuzzWrite> writes = new ArrayList<>();
    final FuzzCase fuzzCase;
    final Path dir;
    final Path engineDir;
    final Path spillRoot;
    private final long deadlineMillis;
    /** The most the engine's own counter read after a grant to any write, and how often it read more than the engine's size. */
    final AtomicLong enginePeak = new AtomicLong();
    final AtomicLong engineOver = new AtomicLong();
    long engineStart;
    long hogTook;
    boolean shrinkFired;
    boolean hung;
    String stacks = "";
    StandaloneEngine engine;
    private EngineResources hog;

    FuzzIteration(FuzzCase fuzzCase, Path dir, long deadlineMillis) throws Exception {
        this.fuzzCase = fuzzCase;
        this.dir = dir;
        this.deadlineMillis = deadlineMillis;
        this.engineDir = Files.createDirectories(dir.resolve("engine"));
        this.spillRoot = Files.createDirectories(dir.resolve("spill"));
        Path warehouse = Files.createDirectories(dir.resolve("warehouse"));
        for (FuzzCase.WritePlan plan : fuzzCase.writes()) {
            writes.add(new FuzzWrite(plan, fuzzCase.allocator(), warehouse));
        }
    }

    /** Runs the writes and the events until every write ended or the deadline passed. */
    void run() throws Exception {
        GovernanceProvider provider = fuzzCase.allocator().provider();
        long engineBytes = fuzzCase.engineBytes();
        engine = provider.standalone(engineBytes, engineDir).orElseThrow();
        engineStart = engine.engineUsedBytes();
        List<Thread> threads = new ArrayList<>();
        for (FuzzWrite w : writes) {
            w.provider.onGrant(sampleEngine(w));
            GovernanceOptions options = w.options(fuzzCase.allocator(), spillRoot);
            Thread t = new Thread(() -> w.run(engine, options), "fuzz-" + fuzzCase.seed() + "-w" + w.plan.index());
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMillis);
        try {
            while (!allEnded()) {
                if (System.nanoTime() > deadline) {
                    hang(threads);
                    return;
                }
                fireEvents(provider);
                Thread.sleep(1);
            }
        } finally {
            giveBack();
        }
    }

    /** After every grant to {@code w}'s allocator: its own counter against its budget, the engine's against its size. */
    private Consumer<ObservedProvider.Opened> sampleEngine(FuzzWrite w) {
        return opened -> {
            long held = opened.usedBytes();
            if (held > w.plan.budgetBytes()) {
                w.overBudget.add(held + " bytes after a grant");
            }
            long used = engine.engineUsedBytes();
            enginePeak.accumulateAndGet(used, Math::max);
            if (used > fuzzCase.engineBytes()) {
                engineOver.incrementAndGet();
            }
        };
    }

    private boolean allEnded() {
        return writes.stream().allMatch(FuzzWrite::ended);
    }

    /** Cancels the writes whose row has come, and shrinks or restores the engine when the shrink's write gets there. */
    private void fireEvents(GovernanceProvider provider) {
        for (FuzzWrite w : writes) {
            if (!w.cancelAttempted && !w.ended() && w.opened() && w.atCancelPoint()) {
                w.cancelAttempted = true;
                w.cancel();
            }
        }
        FuzzCase.Shrink shrink = fuzzCase.shrink();
        if (shrink == null) {
            return;
        }
        FuzzWrite trigger = writes.get(shrink.write());
        if (!shrinkFired && !trigger.ended() && trigger.opened() && trigger.written() >= shrink.atRow()) {
            shrinkFired = true;
            takeEngineMemory(provider, shrink.eighths());
        }
        if (hog != null && (trigger.ended() || trigger.written() >= shrink.backAtRow())) {
            giveBack();
        }
    }

    /** Another consumer of the same engine takes {@code eighths}/8 of what the engine has free, in halving chunks. */
    private void takeEngineMemory(GovernanceProvider provider, int eighths) {
        long engineBytes = fuzzCase.engineBytes();
        GovernanceOptions options = GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, Long.toString(engineBytes)));
        hog = provider.open(options.providerOptions(), engine.environment());
        long target = Math.max(0, engineBytes - engine.engineUsedBytes()) * eighths / 8;
        for (long chunk = Math.max(1024, target); chunk >= 1024; chunk /= 2) {
            while (hogTook + chunk <= target && hog.memory().tryReserve(chunk)) {
                hogTook += chunk;
            }
        }
    }

    /** The other consumer lets go (idempotent). */
    private void giveBack() {
        if (hog != null) {
            hog.memory().release(hogTook);
            hog.close();
            hog = null;
        }
    }

    /**
     * The deadline passed: the stacks of every thread are kept for the failure, every write is
     * cancelled and its thread interrupted, and the iteration gives them a little time to end.
     */
    private void hang(List<Thread> threads) throws InterruptedException {
        hung = true;
        stacks = threadStacks();
        for (FuzzWrite w : writes) {
            if (w.opened() && !w.ended()) {
                w.cancel();
            }
        }
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            t.join(10_000);
        }
    }

    /** Every live thread's stack, with the locks it holds and waits for. */
    static String threadStacks() {
        StringBuilder sb = new StringBuilder();
        for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            sb.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
            if (info.getLockName() != null) {
                sb.append(" on ").append(info.getLockName());
            }
            if (info.getLockOwnerName() != null) {
                sb.append(" owned by \"").append(info.getLockOwnerName()).append('"');
            }
            sb.append('\n');
            for (StackTraceElement e : info.getStackTrace()) {
                sb.append("    at ").append(e).append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * Closes the engine once every write ended (a hung iteration leaves it: its threads may still
     * use it).
     *
     * @return what closing threw (an engine's own leak check), or null
     */
    Throwable closeEngine() {
        if (engine == null || hung) {
            return null;
        }
        try {
            engine.close();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }
}
