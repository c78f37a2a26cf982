package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.GovernanceProvider;
import java.util.ServiceLoader;
import java.util.function.Supplier;

/**
 * The verification {@link TckRunner#runDiscovered} runs: the provider a name found, capabilities
 * read off its standalone engine (it cancels when {@link StandaloneEngine#cancel} says it can; it
 * has readable metrics when it overrides {@link StandaloneEngine#reportedMetrics}). Not for vendors
 * to extend.
 *
 * <p>Every use of the provider is a new instance, made the way {@link ServiceLoader} makes it, so
 * that no rule sees what an earlier rule left in the provider (a cache used up, a name changed):
 * a rule's verdict is the same alone and in a full run.
 */
public final class DiscoveredVerification extends GovernanceVerification {

    static volatile Supplier<GovernanceProvider> target;

    public DiscoveredVerification() {
        super(DiscoveredVerification::target);
    }

    private static GovernanceProvider target() {
        Supplier<GovernanceProvider> p = target;
        if (p == null) {
            throw new IllegalStateException("DiscoveredVerification runs only through TckRunner.runDiscovered");
        }
        return p.get();
    }

    /**
     * New instances of {@code found}'s class, one per call, from the {@link ServiceLoader} entry
     * that {@code loader} lists for it.
     *
     * @throws IllegalStateException when {@code loader} does not list that class
     */
    static Supplier<GovernanceProvider> freshInstancesOf(GovernanceProvider found, ClassLoader loader) {
        ServiceLoader.Provider<GovernanceProvider> entry = ServiceLoader.load(GovernanceProvider.class, loader).stream()
                .filter(p -> p.type() == found.getClass())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(found.getClass().getName() + " is not listed for ServiceLoader on " + loader));
        return entry::get;
    }

    @Override
    public boolean supports(Capability capability) {
        return switch (capability) {
            case ENGINE_CANCELLATION -> probeEngine(engine -> engine.cancel("tck: does this engine cancel?"));
            case ENGINE_METRICS -> probeEngine(DiscoveredVerification::readsMetricsBack);
        };
    }

    /** An engine that can read its metrics back overrides {@link StandaloneEngine#reportedMetrics}. */
    private static boolean readsMetricsBack(StandaloneEngine engine) {
        try {
            return engine.getClass().getMethod("reportedMetrics").getDeclaringClass() != StandaloneEngine.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
