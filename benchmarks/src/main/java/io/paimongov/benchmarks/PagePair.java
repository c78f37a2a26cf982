package io.paimongov.benchmarks;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.Providers;
import io.paimongov.spi.SegmentAllocator;
import io.paimongov.runtime.config.GovernanceOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.memory.MemorySegment;

/**
 * One provider's page next to the engine's own call for the same page, over one standalone engine:
 * the two sides of the allocator overhead (P7, {@link AllocOverhead}) and of the JMH benchmark
 * {@code io.paimongov.benchmarks.jmh.PageBenchmark}.
 *
 * <p>How it works. The provider is found by name through {@link Providers}, as the runtime finds
 * it; its {@link GovernanceProvider#standalone standalone engine} of {@value #ENGINE_BYTES} bytes is
 * the engine, and {@link GovernanceProvider#open} on that engine's environment gives the {@link
 * SegmentAllocator} a governed write takes its pages from. {@link #providerPage()} makes the call the
 * runtime's page pool makes for a page Paimon asks for ({@code allocate} of one page into a new
 * list) and gives the page straight back ({@code release}); {@link #enginePage()} is the engine's
 * own call ({@link EnginePage}) on the same engine objects. Both give back what they take, so the
 * engine stays empty between calls. Pages are {@value #PAGE_SIZE} bytes on every engine that takes
 * the page-size option; an engine that fixes its own (Flink's {@code taskmanager.memory.segment-size},
 * 32 KiB by default; {@link SegmentAllocator#pageSizeFixedByEngine()}) uses that size on both
 * sides.
 *
 * <p><b>Thread-safety:</b> both calls may run on any thread, as the allocators and engines are
 * thread-safe; {@link #close()} once, after the last call. <b>May throw:</b> {@link #open} throws
 * {@link IllegalArgumentException} for an unknown provider, {@link IllegalStateException} when the
 * provider cannot run standalone or its engine needs a JVM flag that is missing (the message names
 * it); {@link #close()} throws {@link IllegalStateException} when the provider left memory held.
 */
public final class PagePair implements AutoCloseable {

    /** The providers of this project, in report order. */
    public static final List<String> PROVIDERS = List.of("heap", "offheap", "flink", "spark");

    /** The page size asked for: 64 KiB, the runtime's default page; an engine that fixes its own uses that. */
    public static final int PAGE_SIZE = 64 << 10;

    /** The standalone engine's memory; the write's budget is half of it. */
    public static final long ENGINE_BYTES = 64L << 20;

    private final String provider;
    private final Path tempDir;
    private final StandaloneEngine engine;
    private final EngineResources resources;
    private final SegmentAllocator allocator;
    private final EnginePage enginePage;

    private PagePair(String provider, Path tempDir, StandaloneEngine engine, EngineResources resources) {
        this.provider = provider;
        this.tempDir = tempDir;
        this.engine = engine;
        this.resources = resources;
        this.allocator = resources.memory();
        this.enginePage = EnginePage.of(provider, engine.environment(), allocator.pageSize());
    }

    /** Opens provider {@code name} on a standalone engine of its own, under a new temp directory. */
    public static PagePair open(String name) {
        GovernanceProvider provider = Providers.load(name, PagePair.class.getClassLoader());
        Path tempDir = createTempDir(name);
        StandaloneEngine engine = null;
        EngineResources resources = null;
        try {
            engine = provider.standalone(ENGINE_BYTES, tempDir)
                    .orElseThrow(() -> new IllegalStateException("provider '" + name + "' has no standalone engine"));
            GovernanceOptions options = GovernanceOptions.of(Map.of(
                    GovernanceOptions.MEMORY_BUDGET, String.valueOf(ENGINE_BYTES / 2),
                    GovernanceOptions.PAGE_SIZE, String.valueOf(PAGE_SIZE),
                    GovernanceOptions.SPILL_DIRS, tempDir.toString()));
            resources = provider.open(options.providerOptions(), engine.environment());
            SegmentAllocator memory = resources.memory();
            if (memory.pageSize() != PAGE_SIZE && !memory.pageSizeFixedByEngine()) {
                throw new IllegalStateException("provider '" + name + "' gives pages of " + memory.pageSize()
                        + " bytes, not " + PAGE_SIZE + ", and does not say that its engine fixes the page size");
            }
            return new PagePair(name, tempDir, engine, resources);
        } catch (RuntimeException | Error e) {
            closeQuietly(resources, engine, tempDir, e);
            throw e;
        }
    }

    /** The provider's name. */
    public String provider() {
        return provider;
    }

    /**
     * One page through the provider, as the runtime's page pool takes it, given straight back.
     *
     * @return the page (already released)
     */
    public Object providerPage() {
        List<MemorySegment> got = new ArrayList<>(1);
        allocator.allocate(got, 1);
        allocator.release(got);
        return got;
    }

    /**
     * One page through the engine's own call, given straight back.
     *
     * @return the page (already given back)
     */
    public Object enginePage() {
        return enginePage.takeAndGive();
    }

    /** What the engine counts as taken now, read from the engine; 0 between calls. */
    long engineUsedBytes() {
        return engine.engineUsedBytes();
    }

    /**
     * Closes the provider's resources (their leak check runs), the engine, and deletes the temp
     * directory.
     *
     * @throws IllegalStateException when the provider still held memory
     */
    @Override
    public void close() {
        try {
            resources.close();
        } finally {
            try {
                engine.close();
            } finally {
                BenchTables.deleteTree(tempDir);
            }
        }
    }

    private static void closeQuietly(EngineResources resources, StandaloneEngine engine, Path tempDir, Throwable failure) {
        try {
            if (resources != null) {
                resources.close();
            }
            if (engine != null) {
                engine.close();
            }
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
        BenchTables.deleteTree(tempDir);
    }

    private static Path createTempDir(String name) {
        try {
            return Files.createTempDirectory("paimon-gov-pages-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
