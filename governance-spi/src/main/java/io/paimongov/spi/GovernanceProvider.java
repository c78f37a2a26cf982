package io.paimongov.spi;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The one type an allocator module implements: it turns an engine's memory manager, temp dirs,
 * cancel state, metric system and threads into {@link EngineResources} for one logical write.
 *
 * <p>Found with {@link java.util.ServiceLoader}: list the implementation in
 * {@code META-INF/services/io.paimongov.spi.GovernanceProvider}. The runtime selects one by name
 * (option {@code governance.provider}).
 *
 * <p><b>Thread-safety:</b> implementations must be thread-safe; {@link #open} may be called from
 * many engine threads at once, once per logical write. <b>May throw:</b> {@link #open} throws
 * {@link IllegalArgumentException} naming the option key for bad configuration and {@link
 * IllegalStateException} when the engine environment lacks what the provider needs (the message
 * says what to add). It must not leave anything acquired when it throws.
 */
public interface GovernanceProvider {

    /**
     * The provider's name, used to select it ({@code heap}, {@code offheap}, {@code flink}, ...):
     * lower case, stable across releases, unique on a class path.
     */
    String name();

    /**
     * Opens the engine resources of one logical write. The runtime calls it once per write, on
     * the thread that opens the write, and closes the result exactly once when the write ends.
     *
     * @param options the write's validated budget, page size and spill settings, and the keys the
     *     provider validates itself
     * @param environment what the engine hands over (its memory manager, task context, ...)
     */
    EngineResources open(ProviderOptions options, EngineEnvironment environment);

    /**
     * A standalone engine of this provider's kind with {@code budgetBytes} of memory and its temp
     * space under {@code tempDir}, for the TCK and the CLI. Empty when the provider cannot run
     * without its host; the TCK then observes the engine through the provider's own counters.
     */
    default Optional<StandaloneEngine> standalone(long budgetBytes, Path tempDir) {
        return Optional.empty();
    }
}
