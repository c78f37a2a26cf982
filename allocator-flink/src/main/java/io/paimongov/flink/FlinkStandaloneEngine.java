package io.paimongov.flink;

import io.paimongov.spi.ManualStandaloneEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.runtime.memory.MemoryManager;

/**
 * The Flink provider's engine on its own: a {@link MemoryManager} of the budget, as a slot has, with
 * a {@link FlinkSlot} of the whole budget and one spill root under the temp dir, a manual cancel and
 * a metrics sink that keeps the last snapshot a write reported. {@link #engineUsedBytes()} is the
 * manager's own count, so the TCK judges the provider by Flink rather than by the provider's word.
 *
 * <p>Pages are 64 KiB, the largest page the TCK asks for: the manager's page size wins over {@code
 * governance.memory.page-size}, and whole 64 KiB pages are whole pages of every smaller size too.
 *
 * <p>Thread-safe. {@link #close()} shuts the manager down; idempotent.
 */
final class FlinkStandaloneEngine extends ManualStandaloneEngine {

    static final int PAGE_SIZE = 64 << 10;

    private final long budgetBytes;
    private final MemoryManager manager;

    FlinkStandaloneEngine(long budgetBytes, Path tempDir) {
        this.budgetBytes = budgetBytes;
        this.manager = MemoryManager.create(budgetBytes, PAGE_SIZE);
        Path spill;
        try {
            spill = Files.createDirectories(tempDir.resolve("flink-io"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        publish(environmentWith()
                .with(MemoryManager.class, manager)
                .with(FlinkSlot.class, new FlinkSlot(budgetBytes, List.of(spill))));
    }

    @Override
    public long engineUsedBytes() {
        return budgetBytes - manager.availableMemory();
    }

    @Override
    public void close() {
        manager.shutdown();
    }
}
