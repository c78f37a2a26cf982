package com.example.governance;

import com.example.engine.FramePool;
import io.paimongov.allocator.support.PagedResources;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.EngineResources.CompactionThreads;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.ProviderOptions;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Provider {@code example-frames}: a write's memory comes from the engine's {@link FramePool},
 * found in the {@link EngineEnvironment} the engine hands over, so all writes of one engine share
 * its pool; without one, each write gets a pool of its own budget. Spill, cancel and metrics are
 * what the environment carries, or the runtime's defaults. Registered for {@link
 * java.util.ServiceLoader} in {@code META-INF/services/io.paimongov.spi.GovernanceProvider}.
 *
 * <p>Stateless; thread-safe.
 */
public final class FramePoolProvider implements GovernanceProvider {

    public static final String NAME = "example-frames";

    /** The engine's cap on compaction threads per write. */
    private static final int MAX_COMPACTION_THREADS = 8;

    @Override
    public String name() {
        return NAME;
    }

    /** @throws IllegalArgumentException for any {@code governance.example-frames.*} key: this provider has none */
    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        options.providerKeys().keySet().stream()
                .filter(key -> key.startsWith("governance." + NAME + "."))
                .findFirst()
                .ifPresent(key -> {
                    throw new IllegalArgumentException("unknown option '" + key + "': provider " + NAME + " has no options of its own");
                });
        FramePool pool = environment.find(FramePool.class).orElseGet(() -> new FramePool(options.budgetBytes()));
        return new PagedResources(
                new FramePoolAllocator(pool, options.pageSize(), options.budgetBytes()),
                SpillLocations.of(options.spillDirs(), options.spillMaxBytes()),
                environment.cancellationOrNever(),
                environment.metricsOrNone(),
                CompactionThreads.daemons("example-frames-compaction-", MAX_COMPACTION_THREADS));
    }

    /** The engine without its host: a pool of {@code budgetBytes}, for the kit and the CLI. */
    @Override
    public Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        return Optional.of(new FramePoolEngine(budgetBytes));
    }
}
