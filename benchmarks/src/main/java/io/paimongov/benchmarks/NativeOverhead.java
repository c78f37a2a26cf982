package io.paimongov.benchmarks;

import io.paimongov.heap.HeapGovernanceProvider;
import io.paimongov.nativehost.NativeGovernanceProvider;
import io.paimongov.nativehost.NativeHost;
import io.paimongov.nativehost.NativeHosts;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;
import io.paimongov.spi.ProviderOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.paimon.table.FileStoreTable;

/**
 * What governing through the C ABI costs ({@code bench native}, docs/performance.md): the same
 * governed write on the heap provider and on the native provider over the reference host built into
 * its JNI library, twice: with the host's callbacks bounded (every page and reservation handed to a
 * call thread that the caller waits for, at most the callback timeout) and with {@code
 * PG_NO_TIMEOUT} (called directly); side by side in one run.
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
        NativeHost bounded = NativeHosts.open("bench", null, null, Long.MAX_VALUE / 2, "");
        NativeHost direct = NativeHosts.open("bench-direct", null, null, Long.MAX_VALUE / 2, "timeout=none");
        List<NativeHost> sides = Arrays.asList(null, bounded, direct);
        try {
            for (long budget : List.of(fits, spills)) {
                String key = budget == fits ? "Fits" : "Spills";
                String ratio = budget == fits ? "" : "Spilling";
                progress.accept("throughput, budget " + budget + " bytes (" + key.toLowerCase(Locale.ROOT) + ")");
                long[] medians = alternate(workDir, s, budget, sides);
                r.put("budget" + key + "Bytes", budget);
                r.put("heap" + key + "MedianMillis", medians[0]);
                r.put("native" + key + "MedianMillis", medians[1]);
                r.put("nativeDirect" + key + "MedianMillis", medians[2]);
                r.put("throughputRatio" + ratio, BenchTables.round2((double) medians[0] / medians[1]));
                r.put("throughputRatioDirect" + ratio, BenchTables.round2((double) medians[0] / medians[2]));
            }
            progress.accept("one call: tryReserve and release of 4 KiB");
            double heapCall = callNanos(null, workDir, s);
            double nativeCall = callNanos(bounded, workDir, s);
            double directCall = callNanos(direct, workDir, s);
            r.put("heapCallNanos", BenchTables.round2(heapCall));
            r.put("nativeCallNanos", BenchTables.round2(nativeCall));
            r.put("nativeDirectCallNanos", BenchTables.round2(directCall));
            r.put("hostHeldAtEnd", bounded.heldBytes() + direct.heldBytes());
        } finally {
            r.put("hostDetachHeldBytes", NativeHosts.detach(bounded.name()) + NativeHosts.detach(direct.name()));
        }
        return r;
    }

    /** The medians of the sides (null: the heap provider), in their order, alternating. */
    private static long[] alternate(Path workDir, Sizes s, long budget, List<NativeHost> sides) throws Exception {
        int n = sides.size();
        List<List<Long>> times = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            times.add(new ArrayList<>());
            once(workDir.resolve("warm-" + i), s, budget, sides.get(i));
        }
        for (int rep = 0; rep < s.repetitions(); rep++) {
            for (int j = 0; j < n; j++) {
                int i = (rep + j) % n;
                times.get(i).add(once(workDir.resolve("run-" + i + "-" + rep), s, budget, sides.get(i)));
            }
        }
        long[] medians = new long[n];
        for (int i = 0; i < n; i++) {
            medians[i] = BenchTables.median(times.get(i));
        }
        return medians;
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

    /** Nanoseconds per tryReserve + release pair on the heap provider ({@code host} null) or over {@code host}, the median batch. */
    private static double callNanos(NativeHost host, Path workDir, Sizes s) throws Exception {
        GovernanceProvider provider = host == null ? new HeapGovernanceProvider() : new NativeGovernanceProvider();
        EngineEnvironment environment = host == null ? EngineEnvironment.standalone() : EngineEnvironment.builder().with(NativeHost.class, host).build();
        ProviderOptions options = ProviderOptions.builder(64L << 20, 64 << 10)
                .spillDirs(List.of(Files.createDirectories(workDir.resolve("call-spill"))), true).build();
        List<Long> batches = new ArrayList<>();
        try (EngineResources resources = provider.open(options, environment)) {
            for (int b = 0; b < s.callBatches() + 1; b++) {
                long start = System.nanoTime();
                for (int i = 0; i < s.callsPerBatch(); i++) {
                    if (!resources.memory().tryReserve(4096, ConsumerKind.WRITER)) {
                        throw new IllegalStateException("a 4 KiB reservation was refused on an empty allocator");
                    }
                    resources.memory().release(4096, ConsumerKind.WRITER);
                }
                if (b > 0) {
                    batches.add(System.nanoTime() - start);
                }
            }
        }
        BenchTables.deleteTree(workDir.resolve("call-spill"));
        return (double) BenchTables.median(batches) / s.callsPerBatch();
    }
}
