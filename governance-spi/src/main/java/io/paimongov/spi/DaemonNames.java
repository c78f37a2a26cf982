package io.paimongov.spi;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The process-wide thread counters of {@link EngineResources.CompactionThreads#daemons}, one per name prefix, so
 * that thread names stay unique across the writes of a provider. Thread-safe.
 */
final class DaemonNames {

    static final ConcurrentMap<String, AtomicInteger> COUNTERS = new ConcurrentHashMap<>();

    private DaemonNames() {}
}
