package io.paimongov.benchmarks;

import io.paimongov.runtime.Providers;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * The child JVM of {@link ProviderBound}: {@code PROVIDER WORK_DIR ROWS BUCKETS VALUE_BYTES
 * BUDGET_BYTES HEAP_SAMPLE_MILLIS COUNTER_MILLIS}. One governed, spilling write on provider {@code
 * PROVIDER}'s engine: for {@code offheap} and {@code flink} the provider's standalone engine (Arrow's
 * root allocator, Flink's {@code MemoryManager}, as a slot has it) of twice the budget, so the
 * engine's counter shows what the write took and not the engine's limit; for {@code spark} a task of
 * a local Spark context ({@link ProviderBoundSpark}).
 *
 * <p>Order: an untimed warm-up write of a quarter of the rows on the heap provider (Paimon's lazily
 * built classes and caches go into the baseline; the engine's pools, Netty's among them, stay
 * untouched, so what the engine keeps after its first use counts against the write), then the
 * engine and the table, then the baselines (live heap settled, native memory, the engine's
 * counter), then the samplers ({@link LiveHeapSampler}, {@link CounterSampler}), then the write. It
 * prints one line {@value ProviderBound#RESULT} {@code key=value ...} and exits 0; any failure ends
 * it otherwise (an {@code OutOfMemoryError} through {@code -XX:+ExitOnOutOfMemoryError}).
 */
public final class ProviderBoundChild {

    /** The child's arguments, shipped to a Spark task as they are (so the directory is a string: a {@link Path} is not serializable). */
    record Settings(String provider, String workDir, int rows, int buckets, int valueBytes, long budget, long heapSampleMillis,
            long counterMillis) implements Serializable {

        /** The work directory. */
        Path dir() {
            return Path.of(workDir);
        }
    }

    private ProviderBoundChild() {}

    public static void main(String[] args) throws Exception {
        Settings s = new Settings(args[0], args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                Integer.parseInt(args[4]), Long.parseLong(args[5]), Long.parseLong(args[6]), Long.parseLong(args[7]));
        warmUp(s.dir().resolve("warm-up"), s.rows() / 4, s.buckets(), s.valueBytes(), s.budget());
        String result = s.provider().equals("spark") ? ProviderBoundSpark.run(s) : standalone(s);
        BenchTables.deleteTree(s.dir().resolve("sampled"));
        System.out.println(ProviderBound.RESULT + " " + result);
        System.out.flush();
        System.exit(0);
    }

    private static String standalone(Settings s) throws Exception {
        GovernanceProvider provider = Providers.load(s.provider(), ProviderBoundChild.class.getClassLoader());
        StandaloneEngine engine = provider.standalone(2 * s.budget(), s.dir().resolve("engine"))
                .orElseThrow(() -> new IllegalStateException("provider '" + s.provider() + "' has no standalone engine"));
        try (engine) {
            FileStoreTable table = BenchTables.create(warehouse(s), BenchTables.Shape.primaryKey(s.buckets()));
            return measure(s, table, provider, engine.environment(), engine::engineUsedBytes, () -> ownPeak(engine.environment()));
        }
    }

    /** Where the sampled write's table goes. */
    static Path warehouse(Settings s) {
        return s.dir().resolve("sampled").resolve("warehouse");
    }

    /**
     * Takes the baselines, starts the samplers, runs the write of {@code table} on {@code provider}
     * over {@code environment} and returns the result's {@code key=value} pairs. {@code engineUsed}
     * is the engine's counter, {@code ownPeak} the most it ever counted where the engine keeps that
     * (0 otherwise). Runs on the writing thread.
     */
    static String measure(Settings s, FileStoreTable table, GovernanceProvider provider, EngineEnvironment environment,
            LongSupplier engineUsed, LongSupplier ownPeak) throws Exception {
        BenchTables.Rows generator = new BenchTables.Rows(7, s.rows(), s.valueBytes());
        long heapBase = LiveHeap.settled();
        long nativeBase = NativeMemory.read().committedBytes();
        long engineBase = engineUsed.getAsLong();
        LiveHeapSampler heap = new LiveHeapSampler(s.heapSampleMillis(), s.budget() / 32, null);
        CounterSampler counters = new CounterSampler(s.counterMillis(), engineUsed);
        heap.start();
        counters.start();
        GovernedTableWrite write = BenchTables.governedWrite(
                table, "p2-" + s.provider(), provider, environment, s.budget(), s.dir().resolve("sampled"), Map.of());
        try (write) {
            for (int i = 0; i < s.rows(); i++) {
                write.write(generator.next());
            }
            heap.sampleNow();
            write.prepareCommit().commit();
        } finally {
            heap.stop();
            counters.stop();
        }
        MetricsSnapshot m = write.metrics();
        long enginePeak = Math.max(counters.enginePeakBytes(), ownPeak.getAsLong());
        return "peakHeapBytes=" + Math.max(0, heap.peakBytes() - heapBase)
                + " peakNativeBytes=" + Math.max(0, counters.nativePeakBytes() - nativeBase)
                + " peakEngineBytes=" + Math.max(0, enginePeak - engineBase)
                + " peakAccountedBytes=" + m.peakReservedBytes()
                + " heapSamples=" + heap.samples()
                + " counterSamples=" + counters.samples()
                + " spillCount=" + m.spillCount();
    }

    private static void warmUp(Path dir, int rows, int buckets, int valueBytes, long budget) throws Exception {
        FileStoreTable table = BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(buckets));
        BenchTables.Rows generator = new BenchTables.Rows(7, rows, valueBytes);
        try (GovernedTableWrite write = BenchTables.governedWrite(table, "warm-up", budget, dir, Map.of())) {
            for (int i = 0; i < rows; i++) {
                write.write(generator.next());
            }
            write.prepareCommit().commit();
        }
        BenchTables.deleteTree(dir);
    }

    /**
     * The most the engine's memory manager ever handed out, as the engine keeps it itself: Arrow's
     * root allocator's peak, or the Spark task's peak execution memory (on and off heap); 0 for an
     * engine that keeps none (Flink's {@code MemoryManager}: the sampled counter alone).
     */
    static long ownPeak(EngineEnvironment environment) {
        long arrow = environment.find(BufferAllocator.class).map(BufferAllocator::getPeakMemoryAllocation).orElse(0L);
        long spark = environment.find(TaskMemoryManager.class).map(ProviderBoundChild::sparkPeak).orElse(0L);
        return Math.max(arrow, spark);
    }

    /** A Spark task's peak execution memory, on and off heap, as its memory manager keeps it. */
    static long sparkPeak(TaskMemoryManager tmm) {
        return tmm.getPeakOnHeapExecutionMemory() + tmm.getPeakOffHeapExecutionMemory();
    }
}
