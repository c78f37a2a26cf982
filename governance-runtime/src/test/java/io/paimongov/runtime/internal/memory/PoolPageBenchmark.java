package io.paimongov.runtime.internal.memory;

import io.paimongov.runtime.Providers;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * One page through the runtime's page pool over a provider ({@link #poolPage}): taken from the
 * engine with the pool's page reservation and boundary checks ({@link GovernedSegmentPool}: page
 * size, a page live twice, a heap array or an off-heap address range live twice, {@code usedBytes()}
 * below zero), handed back ({@code returnAll}) and given back to the engine at once ({@code
 * releaseCached}). Against {@code PageBenchmark.providerPage} of the benchmarks module, which takes
 * the same page from the same provider on the same engine without the pool, it is what the pool adds
 * per page taken from the engine.
 *
 * <p>The engine is the provider's standalone engine of {@value #ENGINE_BYTES} bytes, the write's
 * budget half of it and pages of {@value #PAGE_SIZE} bytes, as {@code PagePair} opens it for the
 * provider side (an engine that fixes its own page size, Flink's, uses that). The providers are
 * found by name at run time, on the benchmarks module's class path: {@code benchmarks/jmh
 * PoolPageBenchmark} runs it (docs/jmh.md); the runtime's tests do not have them. Average time per
 * page, in nanoseconds; each trial opens a fresh engine and closes it after, with the provider's leak
 * check.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    ForkFlags.HEAP, ForkFlags.HEAP_START, ForkFlags.PRE_TOUCH, ForkFlags.IGNORE_UNRECOGNIZED, ForkFlags.NIO, ForkFlags.LANG, ForkFlags.INVOKE, ForkFlags.REFLECT,
    ForkFlags.IO, ForkFlags.NET, ForkFlags.UTIL, ForkFlags.CONCURRENT, ForkFlags.ATOMIC, ForkFlags.REF, ForkFlags.NIO_CH,
    ForkFlags.NIO_CS, ForkFlags.ACTION, ForkFlags.CALENDAR, ForkFlags.METHOD_HANDLE, ForkFlags.NETTY
})
public class PoolPageBenchmark {

    static final int PAGE_SIZE = 64 << 10;
    static final long ENGINE_BYTES = 64L << 20;

    /** The provider, and so the engine, of this trial. */
    @Param({"heap", "offheap", "flink", "spark"})
    public String provider;

    private Path tempDir;
    private StandaloneEngine engine;
    private EngineResources resources;
    private GovernedSegmentPool pool;

    @Setup(Level.Trial)
    public void open() throws IOException {
        GovernanceProvider found = Providers.load(provider, PoolPageBenchmark.class.getClassLoader());
        tempDir = Files.createTempDirectory("paimon-gov-pool-pages-" + provider + "-");
        engine = found.standalone(ENGINE_BYTES, tempDir)
                .orElseThrow(() -> new IllegalStateException("provider '" + provider + "' has no standalone engine"));
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, String.valueOf(ENGINE_BYTES / 2),
                GovernanceOptions.PAGE_SIZE, String.valueOf(PAGE_SIZE),
                GovernanceOptions.SPILL_DIRS, tempDir.toString()));
        resources = found.open(options.providerOptions(), engine.environment());
        pool = new GovernedSegmentPool(new MemoryBudget(resources.memory()), () -> {});
    }

    /** Gives every page back, closes the provider's resources (their leak check runs) and the engine. */
    @TearDown(Level.Trial)
    public void close() throws IOException {
        try {
            pool.close();
            resources.close();
        } finally {
            try {
                engine.close();
            } finally {
                try (Stream<Path> files = Files.walk(tempDir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(PoolPageBenchmark::delete);
                }
            }
        }
    }

    /** A page through the pool over the provider: its accounting and boundary checks on top of the provider's call. */
    @Benchmark
    public Object poolPage() {
        MemorySegment page = pool.nextSegment();
        pool.returnAll(List.of(page));
        pool.releaseCached();
        return page;
    }

    private static void delete(Path path) {
        try {
            Files.delete(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
