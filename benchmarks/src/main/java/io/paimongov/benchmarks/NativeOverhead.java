package io.paimongov.benchmarks;

import io.paimongov.heap.HeapGovernanceProvider;
import io.paimongov.nativehost.NativeGovernanceProvider;
import io.paimongov.nativehost.NativeHost;
import io.paimongov.nativehost.NativeHosts;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.MemoryConsumer;
import io.paimongov.spi.ProviderOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.paimon.table.FileStoreTable;

/**
 * What governing through the C ABI costs ({@code bench native}, docs/performance.md): the same
 * governed write on the native provider, over the reference host built into its JNI library (every
 * page and reservation a bounded call into C), and on the heap provider, side by side in one run.
 *
 * <ul>
 *   <li>Throughput, two budgets: one that holds the input (nothing spills: the cost is the calls of
 *       filling the budget) and one of a sixteenth of it (the write spills; pages are taken once and
 *       reused). A fresh primary-key table per run, created untimed; timed from opening the write
 *       through {@code prepareCommit}. One untimed run of each provider first, then the two alternate,
 *       each round starting with the other; medians compared.
 *   <li>One call: {@code tryReserve} and {@code release} of 4 KiB on one open allocator of each
 *       provider, in batches; the median batch, per pair of calls.
 * </ul>
 *
 * <p>Both sides get the same rows, budget, page size, spill directory and JVM. Not thread-safe; one
 * run at a time.
 */
public final class NativeOverhead {

    /** The sizes of one run, fixed before it. */
    public record Sizes(int rows, int valueBytes, int buckets, int repetitions, int callBatches, int callsPerBatch) {
        public static Sizes full() {
            return new Sizes(400_000, 64, 4, 7, 9, 20_000);
        }

        public static Sizes quick() {
            return new Sizes(150_000, 64, 4, 3, 5, 10_000);
        }

        /** Seconds-long, for the project's own tests; the values mean little. */
        public static Sizes tiny() {
            return new Sizes(20_000, 32, 2, 1, 2, 500);
        }
    }

    private NativeOverhead() {}

    /**
     * Runs every measurement under {@code workDir}; the keys of the map are {@code bench native
     * --json}'s (docs/cli.md).
     *
     * @throws IllegalStateException when the native provider's JNI library is missing here
     */
    public static Map<String, Object> run(Path workDir, Sizes s, Consumer<String> progress) throws Exception {
        long inputBytes = BenchTables.Rows.binaryBytes(s.rows(), s.valueBytes());
        long fits = Math.max(32L << 20, inputBytes * 3);
        long spills = Math.max(4L << 20, fits / 16);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("rows", s.rows());
        r.put("inputBytes", inputBytes);
        r.put("repetitions", s.repetitions());
        NativeHost host = NativeHosts.open("bench", null, null, Long.MAX_VALUE / 2, "");
        try {
            for (long budget : List.of(fits, spills)) {
                String key = budget == fits ? "Fits" : "Spills";
                progress.accept("throughput, budget " + budget + " bytes (" + key.toLowerCase() + ")");
                long[] medians = alternate(workDir, s, budget, host);
                r.put("budget" + key + "Bytes", budget);
                r.put("heap" + key + "MedianMillis", medians[0]);
                r.put("native" + key + "MedianMillis", medians[1]);
                r.put("throughputRatio" + (budget == fits ? "" : "Spilling"), BenchTables.round2((double) medians[0] / medians[1]));
            }
            progress.accept("one call: tryReserve and release of 4 KiB");
            double heapCall = callNanos(new HeapGovernanceProvider(), EngineEnvironment.standalone(), workDir, s);
            double nativeCall = callNanos(new NativeGovernanceProvider(), EngineEnvironment.builder().with(NativeHost.class, host).build(), workDir, s);
            r.put("heapCallNanos", BenchTables.round2(heapCall));
            r.put("nativeCallNanos", BenchTables.round2(nativeCall));
            r.put("callOverheadNanos", BenchTables.round2(nativeCall - heapCall));
            r.put("hostHeldAtEnd", host.heldBytes());
        } finally {
            r.put("hostDetachHeldBytes", NativeHosts.detach(host.name()));
        }
        return r;
    }

    /** {median millis on heap, on native}, alternating. */
    private static long[] alternate(Path workDir, Sizes s, long budget, NativeHost host) throws Exception {
        List<List<Long>> times = List.of(new ArrayList<>(), new ArrayList<>());
        once(workDir.resolve("warm-heap"), s, budget, null);
        once(workDir.resolve("warm-native"), s, budget, host);
        for (int rep = 0; rep < s.repetitions(); rep++) {
            for (int j = 0; j < 2; j++) {
                int i = (rep + j) % 2;
                times.get(i).add(once(workDir.resolve("run-" + i + "-" + rep), s, budget, i == 0 ? null : host));
            }
        }
        return new long[] {BenchTables.median(times.get(0)), BenchTables.median(times.get(1))};
    }

    /** One timed write: on the heap provider when {@code host} is null, else on the native one over it. */
    private static long once(Path dir, Sizes s, long budget, NativeHost host) throws Exception {
        try {
            FileStoreTable table = BenchTables.create(dir.resolve("warehouse"), BenchTables.Shape.primaryKey(s.buckets()));
            Path spill = Files.createDirectories(dir.resolve("spill"));
            GovernanceProvider provider = host == null ? new HeapGovernanceProvider() : new NativeGovernanceProvider();
            EngineEnvironment environment = host == null ? EngineEnvironment.standalone() : EngineEnvironment.builder().with(NativeHost.class, host).build();
            BenchTables.Rows rows = new BenchTables.Rows(42, s.rows(), s.valueBytes());
            long start = System.nanoTime();
            MetricsSnapshot last;
            try (GovernedTableWrite write = BenchTables.governedWrite(table, "native-overhead", provider, environment, budget, spill, Map.of())) {
                for (int i = 0; i < s.rows(); i++) {
                    write.write(rows.next());
                }
                write.prepareCommit();
                last = write.metrics();
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            if (last.inputRows() != s.rows()) {
                throw new IllegalStateException("the write took " + last.inputRows() + " rows of " + s.rows());
            }
            return millis;
        } finally {
            BenchTables.deleteTree(dir);
        }
    }

    /** Nanoseconds per tryReserve + release pair, the median batch. */
    private static double callNanos(GovernanceProvider provider, EngineEnvironment environment, Path workDir, Sizes s) throws Exception {
        ProviderOptions options = ProviderOptions.builder(64L << 20, 64 << 10)
                .spillDirs(List.of(Files.createDirectories(workDir.resolve("call-spill"))), true).build();
        List<Long> batches = new ArrayList<>();
        try (EngineResources resources = provider.open(options, environment)) {
            for (int b = 0; b < s.callBatches() + 1; b++) {
                long start = System.nanoTime();
                for (int i = 0; i < s.callsPerBatch(); i++) {
                    if (!resources.memory().tryReserve(4096, MemoryConsumer.WRITER)) {
                        throw new IllegalStateException("a 4 KiB reservation was refused on an empty allocator");
                    }
                    resources.memory().release(4096, MemoryConsumer.WRITER);
                }
                if (b > 0) {
                    batches.add(System.nanoTime() - start);
                }
            }
        }
        return (double) BenchTables.median(batches) / s.callsPerBatch();
    }
}
