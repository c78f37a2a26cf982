package io.paimongov.benchmarks;

import io.paimongov.runtime.Providers;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.StandaloneEngine;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.paimon.table.FileStoreTable;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * The child JVM of {@link ProviderBound}: {@code PROVIDER WORK_DIR ROWS BUCKETS VALUE_BYTES
 * BUDGET_BYTES HEAP_SAMPLE_MILLIS COUNTER_MILLIS}. One governed, spilling write on provider {@code
 * PROVIDER}'s standalone engine (the engine's own memory manager: Arrow's root allocator, Flink's
 * {@code MemoryManager}, Spark's {@code TaskMemoryManager} over a {@code UnifiedMemoryManager}) of
 * twice the budget, so the engine's counter shows what the write took and not the engine's limit.
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

    private ProviderBoundChild() {}

    public static void main(String[] args) throws Exception {
        String name = args[0];
        Path dir = Path.of(args[1]);
        int rows = Integer.parseInt(args[2]);
        int buckets = Integer.parseInt(args[3]);
        int valueBytes = Integer.parseInt(args[4]);
        long budget = Long.parseLong(args[5]);
        long heapSampleMillis = Long.parseLong(args[6]);
        long counterMillis = Long.parseLong(args[7]);

        warmUp(dir.resolve("warm-up"), rows / 4, buckets, valueBytes, budget);
        GovernanceProvider provider = Providers.load(name, ProviderBoundChild.class.getClassLoader());
        StandaloneEngine engine = provider.standalone(2 * budget, dir.resolve("engine"))
                .orElseThrow(() -> new IllegalStateException("provider '" + name + "' has no standalone engine"));
        FileStoreTable table = BenchTables.create(dir.resolve("sampled").resolve("warehouse"), BenchTables.Shape.primaryKey(buckets));
        BenchTables.Rows generator = new BenchTables.Rows(7, rows, valueBytes);

        long heapBase = LiveHeap.settled();
        long nativeBase = NativeMemory.read().committedBytes();
        long engineBase = engine.engineUsedBytes();
        LiveHeapSampler heap = new LiveHeapSampler(heapSampleMillis, budget / 32, null);
        CounterSampler counters = new CounterSampler(counterMillis, engine::engineUsedBytes);
        heap.start();
        counters.start();
        GovernedTableWrite write = BenchTables.governedWrite(
                table, "p2-" + name, provider, engine.environment(), budget, dir.resolve("sampled"), Map.of());
        try (write) {
            for (int i = 0; i < rows; i++) {
                write.write(generator.next());
            }
            heap.sampleNow();
            write.prepareCommit().commit();
        } finally {
            heap.stop();
            counters.stop();
        }
        MetricsSnapshot m = write.metrics();
        long enginePeak = Math.max(counters.enginePeakBytes(), ownPeak(engine.environment()));
        engine.close();
        BenchTables.deleteTree(dir.resolve("sampled"));
        System.out.println(ProviderBound.RESULT
                + " peakHeapBytes=" + Math.max(0, heap.peakBytes() - heapBase)
                + " peakNativeBytes=" + Math.max(0, counters.nativePeakBytes() - nativeBase)
                + " peakEngineBytes=" + Math.max(0, enginePeak - engineBase)
                + " peakAccountedBytes=" + m.peakReservedBytes()
                + " heapSamples=" + heap.samples()
                + " counterSamples=" + counters.samples()
                + " spillCount=" + m.spillCount());
        System.out.flush();
        System.exit(0);
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
        long spark = environment.find(TaskMemoryManager.class)
                .map(t -> t.getPeakOnHeapExecutionMemory() + t.getPeakOffHeapExecutionMemory()).orElse(0L);
        return Math.max(arrow, spark);
    }
}
