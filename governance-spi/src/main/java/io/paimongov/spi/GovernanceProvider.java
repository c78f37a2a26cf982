package io.paimongov.spi;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The one type an allocator module implements: it turns an engine's memory manager, temp dirs,
 * cancel state, metric system and threads into {@link EngineResources} for one logical write.
 * Contract: docs/spi.md, clauses PROV.1-PROV.6 (registration with {@link java.util.ServiceLoader}
 * is PROV.1).
 *
 * <p><b>Thread-safety:</b> thread-safe; {@link #open} runs on many engine threads at once (PROV.4).
 * <b>Who calls:</b> the runtime, once per write, on the opening thread. <b>May throw:</b> {@link
 * #open}, {@link IllegalArgumentException} or {@link IllegalStateException}, holding nothing
 * (PROV.5).
 */
public interface GovernanceProvider {

    /** The name {@code governance.provider} selects it by (PROV.2). */
    String name();

    /**
     * Opens the engine resources of one logical write (PROV.3-PROV.5); the runtime closes them
     * (RES.2).
     *
     * @param options the write's validated budget, page size and spill settings, and the keys the
     *     provider validates itself (PROV.3)
     * @param environment what the engine hands over (its memory manager, task context, ...)
     */
    EngineResources open(ProviderOptions options, EngineEnvironment environment);

    /** An engine of this provider's kind that runs without its host, for the TCK and the CLI, or empty (PROV.6). */
    default Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        return Optional.empty();
    }
}
