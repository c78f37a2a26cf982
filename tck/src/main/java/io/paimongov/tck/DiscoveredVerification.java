package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.StandaloneEngine;

/**
 * The verification {@link TckRunner#runDiscovered} runs: the provider a name found, capabilities
 * read off its standalone engine (it cancels when {@link StandaloneEngine#cancel} says it can; it
 * has readable metrics when it overrides {@link StandaloneEngine#reportedMetrics}). Not for vendors
 * to extend.
 */
public final class DiscoveredVerification extends GovernanceVerification {

    static volatile GovernanceProvider target;

    public DiscoveredVerification() {
        super(DiscoveredVerification::target);
    }

    private static GovernanceProvider target() {
        GovernanceProvider p = target;
        if (p == null) {
            throw new IllegalStateException("DiscoveredVerification runs only through TckRunner.runDiscovered");
        }
        return p;
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
