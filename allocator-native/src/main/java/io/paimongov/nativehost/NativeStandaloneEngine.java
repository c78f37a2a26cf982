package io.paimongov.nativehost;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A native host on its own, for the kit and the CLI: the host's own {@code used_bytes} is the
 * engine's counter, its {@code cancel} the engine's cancel, and the cancel listeners and metric
 * sources of its writes what it has registered (RES.5). Closing it detaches the host, which gives
 * it back to its library ({@code on_detach}).
 *
 * <p>Thread-safe.
 */
final class NativeStandaloneEngine implements StandaloneEngine {

    private static final Logger LOG = LoggerFactory.getLogger(NativeStandaloneEngine.class);

    private final NativeHost host;
    private final EngineEnvironment environment;

    /** @throws IllegalArgumentException when the host has no {@code used_bytes}, which the kit reads */
    NativeStandaloneEngine(NativeHost host) {
        if (!host.description().has(HostDescription.USED_BYTES)) {
            NativeHosts.detach(host.name());
            throw new IllegalArgumentException("the " + host + " has no used_bytes callback: the kit reads the host's own count"
                    + " through it (paimon_governance.h)");
        }
        this.host = host;
        this.environment = EngineEnvironment.builder().with(NativeHost.class, host).build();
    }

    @Override
    public EngineEnvironment environment() {
        return environment;
    }

    /** The host's {@code used_bytes}; -1 when the call failed. */
    @Override
    public long engineUsedBytes() {
        return host.usedBytes().orElse(-1);
    }

    @Override
    public boolean cancel(String reason) {
        return host.cancelFromHost(reason);
    }

    @Override
    public Optional<Map<String, Integer>> registrations() {
        return Optional.of(Map.of("cancel listeners", host.cancel().listenerCount(), "metric sources", host.metrics().openSources()));
    }

    /**
     * Detaches the host. When a callback is still in the host past its timeout (a host that hangs),
     * the host stays attached and is left to its library, logged: the engine is closed either way.
     */
    @Override
    public void close() {
        if (host.detached()) {
            return;
        }
        try {
            NativeHosts.detach(host.name());
        } catch (IllegalStateException stuck) {
            LOG.warn("{}", stuck.getMessage());
        }
    }
}
