package io.paimongov.offheap;

import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.util.function.Supplier;

/**
 * The engine's reporter, unchanged, plus the write's name for the allocator: {@link
 * MetricsReporter#writeOpened} is the only place the runtime names the write to a provider, and the
 * allocator's leak message names it. Thread-safe as the engine's reporter is.
 */
record NamingReporter(MetricsReporter engine, ArrowSegmentAllocator memory) implements MetricsReporter {

    @Override
    public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
        memory.nameWrite(writeName);
        engine.writeOpened(writeName, live);
    }

    @Override
    public void writeClosed(String writeName, MetricsSnapshot last) {
        engine.writeClosed(writeName, last);
    }
}
