package io.paimongov.tck;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One test's world: the provider (observed), a standalone engine with a budget, and a private temp
 * directory holding the engine's temp space ({@code engine/}), the spill root ({@code spill/}) and
 * the warehouse ({@code warehouse/}). Closing it closes the engine and deletes the directory.
 */
final class TckSubject implements AutoCloseable {

    final ObservedProvider provider;
    final StandaloneEngine engine;
    final long budgetBytes;
    /** The engine's memory: the budget, unless a rule makes the engine tighter or shares it. */
    final long engineBytes;
    final Path dir;
    final Path spillRoot;
    final Path warehouse;
    final long engineStart;

    TckSubject(GovernanceProvider vendor, EngineFactory factory, long budgetBytes) {
        this(vendor, factory, budgetBytes, budgetBytes);
    }

    /** A subject whose writes have {@code budgetBytes} each on an engine of {@code engineBytes}. */
    TckSubject(GovernanceProvider vendor, EngineFactory factory, long budgetBytes, long engineBytes) {
        try {
            this.dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "paimon-gov-tck-");
            this.spillRoot = Files.createDirectories(dir.resolve("spill"));
            this.warehouse = Files.createDirectories(dir.resolve("warehouse"));
            Files.createDirectories(dir.resolve("engine"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.provider = new ObservedProvider(vendor);
        this.budgetBytes = budgetBytes;
        this.engineBytes = engineBytes;
        try {
            this.engine = factory.create(provider, engineBytes, dir.resolve("engine"));
        } catch (RuntimeException | Error e) {
            // An engine that cannot be made (one of a size the engine cannot have) leaves no directory.
            deleteTree(dir);
            throw e;
        }
        this.engineStart = engine.engineUsedBytes();
        provider.engineCounter = engine::engineUsedBytes;
        provider.engineLimit = engineStart + engineBytes;
    }

    /** Makes the standalone engine of a subject; see {@link GovernanceVerification#engine}. */
    @FunctionalInterface
    interface EngineFactory {
        StandaloneEngine create(ObservedProvider provider, long budgetBytes, Path engineDir);
    }

    /** The provider's own standalone engine, or one observed through the provider's counters. */
    static StandaloneEngine defaultEngine(ObservedProvider provider, long budgetBytes, Path engineDir) {
        return provider.vendor().standalone(budgetBytes, engineDir).orElseGet(() -> new ProviderCountedEngine(provider));
    }

    /**
     * The page size the rules ask for unless one sets its own: the rules' allocation sizes (1 to 24
     * pages against a 4 MiB budget) are chosen so that a run reaches the capacity at this size; the
     * {@code auto} default would give such a budget 16 KiB pages and rarely reach it.
     */
    static final String PAGE_SIZE = "64k";

    /** Options for a write in this subject: its budget, {@link #PAGE_SIZE} and spill root, plus {@code extra}. */
    GovernanceOptions options(String... extra) {
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.MEMORY_BUDGET, Long.toString(budgetBytes));
        values.put(GovernanceOptions.PAGE_SIZE, PAGE_SIZE);
        values.put(GovernanceOptions.SPILL_DIRS, spillRoot.toString());
        for (int i = 0; i + 1 < extra.length; i += 2) {
            values.put(extra[i], extra[i + 1]);
        }
        return GovernanceOptions.of(values);
    }

    /**
     * Whether the kit reads a real engine: false when the provider has no standalone engine and
     * the "engine counter" is the allocators' own word ({@link ProviderCountedEngine}).
     */
    boolean hasEngine() {
        return !(engine instanceof ProviderCountedEngine);
    }

    /** Fails {@code rule} unless the engine's counter is back at its start {@code after} (what happened). */
    void checkEngineBack(Rule rule, String after) {
        long now = engine.engineUsedBytes();
        TckContext.check(rule, now == engineStart, "the engine counter is at " + now + " after " + after + "; it started at " + engineStart);
    }

    EngineEnvironment environment() {
        return engine.environment();
    }

    /** Engine resources of one write in this subject, opened by the provider with {@code extra} options. */
    EngineResources open(String... extra) {
        return provider.open(options(extra).providerOptions(), environment());
    }

    @Override
    public void close() {
        try {
            engine.close();
        } finally {
            deleteTree(dir);
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An engine that is only the provider's allocators: the counter is their own word. */
    private static final class ProviderCountedEngine implements StandaloneEngine {
        private final ObservedProvider provider;

        ProviderCountedEngine(ObservedProvider provider) {
            this.provider = provider;
        }

        @Override
        public EngineEnvironment environment() {
            return EngineEnvironment.standalone();
        }

        @Override
        public long engineUsedBytes() {
            return provider.allocatorsUsedBytes();
        }

        @Override
        public Optional<MetricsSnapshot> reportedMetrics() {
            return Optional.empty();
        }

        @Override
        public void close() {}
    }
}
