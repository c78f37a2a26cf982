package io.paimongov.spi;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.nio.file.Path;
import java.util.Map;
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

    /**
     * An engine a provider can run without its host: Flink's {@code MemoryManager} on its own, a Spark
     * {@code TaskMemoryManager} outside a cluster, a plain heap pool. The TCK and the CLI use it to
     * verify a provider against the engine's own counters rather than the provider's word (docs/spi.md,
     * clause PROV.6).
     *
     * <p>Made by {@link GovernanceProvider#standalone}; one per test. <b>Thread-safety:</b> every
     * method may be called from any thread.
     */
    interface StandaloneEngine extends AutoCloseable {

        /** What {@link GovernanceProvider#open} receives for writes on this engine. */
        EngineEnvironment environment();

        /** Bytes the engine's own memory manager counts as taken, read from the engine itself. */
        long engineUsedBytes();

        /**
         * Cancels the way the engine does (a task cancel, a kill), so the provider's {@link
         * CancellationSignal} fires.
         *
         * @return false when this engine has no way to cancel a write from its side
         */
        default boolean cancel(String reason) {
            return false;
        }

        /**
         * What the engine's metric system last received from a write on this engine, read back from
         * the engine, or empty when the engine keeps no metrics a test can read.
         */
        default Optional<MetricsSnapshot> reportedMetrics() {
            return Optional.empty();
        }

        /**
         * What writes have registered with this engine and not removed, read from the engine itself,
         * by kind: listeners on its cancel, live sources in its metric system, listeners on its task,
         * gauges, ... ({@code "cancel listeners" -> 1}). The kit runs many writes on one engine and
         * requires these counts not to grow with them (docs/spi.md, clause RES.5; rule CANCEL-6). Only
         * what a provider or the runtime can register through the engine's objects counts, not what
         * the engine holds for itself. The map is a new immutable one per call.
         *
         * @return empty when this engine cannot count them; the kit then skips CANCEL-6, and a provider
         *     whose required rule is skipped does not conform. allocator-support's {@code
         *     ManualStandaloneEngine} counts the listeners of its manual cancel and the writes open in
         *     its metric sink.
         */
        default Optional<Map<String, Integer>> registrations() {
            return Optional.empty();
        }

        /** Releases the engine. Idempotent. */
        @Override
        void close();
    }
}
