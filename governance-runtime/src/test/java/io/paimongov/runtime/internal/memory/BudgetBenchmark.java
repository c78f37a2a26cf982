package io.paimongov.runtime.internal.memory;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.Providers;
import io.paimongov.spi.SegmentAllocator;
import io.paimongov.runtime.config.GovernanceOptions;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.paimon.memory.MemorySegment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A {@link MemoryReservation} grown and shrunk by {@value #BYTES} bytes: what every writer, spill
 * buffer and compaction task pays to account memory outside pages. {@link #reserveRelease} runs on
 * one thread; {@link #reserveRelease2Threads} on two, each with its own reservation of one shared
 * {@link MemoryBudget}, as a writing thread and a compaction thread of one write do, so they
 * contend on the budget's counter and on the engine's allocator.
 *
 * <p>{@code engine=none} puts the budget over an allocator that accepts every request, so the score
 * is the runtime's accounting alone; {@code engine=heap} over the heap provider's allocator on its
 * standalone engine, the embedded default. Average time per grow-and-shrink, in nanoseconds.
 *
 * <p>A JMH benchmark in the runtime's test tree, as it measures internal classes; {@code
 * benchmarks/jmh BudgetBenchmark} runs it (docs/jmh.md). The heap provider is found by name at run
 * time, on the benchmarks module's class path: the runtime's tests do not have it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = ForkFlags.HEAP)
public class BudgetBenchmark {

    static final long BYTES = 64 << 10;

    /** {@code none}: accounting only; {@code heap}: the heap provider's engine too. */
    @Param({"none", "heap"})
    public String engine;

    private StandaloneEngine standalone;
    private EngineResources resources;
    private MemoryBudget budget;

    @Setup(Level.Trial)
    public void open() {
        if (engine.equals("none")) {
            budget = new MemoryBudget(new AcceptAll());
            return;
        }
        GovernanceProvider heap = Providers.load(engine, BudgetBenchmark.class.getClassLoader());
        standalone = heap.standalone(1L << 30, Path.of(System.getProperty("java.io.tmpdir"))).orElseThrow();
        resources = heap.open(GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, "512m")).providerOptions(), standalone.environment());
        budget = new MemoryBudget(resources.memory());
    }

    @TearDown(Level.Trial)
    public void close() {
        budget.closeAll();
        if (resources != null) {
            resources.close();
            standalone.close();
        }
    }

    /** One reservation per benchmark thread, of the shared budget. */
    @State(Scope.Thread)
    public static class Holder {
        MemoryReservation reservation;

        @Setup(Level.Trial)
        public void open(BudgetBenchmark bench) {
            reservation = bench.budget.newReservation("benchmark thread " + Thread.currentThread().getName());
        }

        @TearDown(Level.Trial)
        public void close() {
            reservation.close();
        }
    }

    /** Grow and shrink, one thread. */
    @Benchmark
    @Threads(1)
    public boolean reserveRelease(Holder holder) {
        return growAndShrink(holder.reservation);
    }

    /** Grow and shrink on each of two threads at once, one budget. */
    @Benchmark
    @Threads(2)
    public boolean reserveRelease2Threads(Holder holder) {
        return growAndShrink(holder.reservation);
    }

    private static boolean growAndShrink(MemoryReservation reservation) {
        boolean grown = reservation.tryGrow(BYTES);
        if (grown) {
            reservation.shrink(BYTES);
        }
        return grown;
    }

    /** An engine that grants every reservation and has no pages: the budget's own cost alone. */
    private static final class AcceptAll implements SegmentAllocator {
        @Override
        public int pageSize() {
            return 64 << 10;
        }

        @Override
        public long capacityBytes() {
            return 1L << 30;
        }

        @Override
        public long usedBytes() {
            return 0;
        }

        @Override
        public void allocate(List<MemorySegment> target, int pages) {
            throw new UnsupportedOperationException("this benchmark reserves bytes only");
        }

        @Override
        public void release(Collection<MemorySegment> pages) {}

        @Override
        public boolean tryReserve(long bytes) {
            return true;
        }

        @Override
        public void release(long bytes) {}
    }
}
