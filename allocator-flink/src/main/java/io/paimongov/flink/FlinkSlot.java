package io.paimongov.flink;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * What a Flink slot gives one governed write, put in the {@link io.paimongov.spi.EngineEnvironment}
 * next to the slot's {@link org.apache.flink.runtime.memory.MemoryManager}: the write's share of the
 * slot's managed memory and the task manager's temp directories. The writer operator of {@code
 * GovernedPaimonSink} builds one in {@code open()} from {@code computeMemorySize(fraction)} and
 * {@code TaskManagerRuntimeInfo.getTmpDirectories()} ({@code io.tmp.dirs}, the same directories for
 * every task manager process, so a new one sweeps what a killed one left); engines that embed the
 * provider elsewhere may build their own.
 *
 * <p>Without one the provider takes what the manager has free when the write opens and the spill
 * roots of {@code governance.spill.dirs}.
 *
 * @param managedBytes the most managed memory this write may take, at least 1
 * @param spillDirs the spill roots, at least one; each write makes its private scope under the first
 *     that accepts it
 */
public record FlinkSlot(long managedBytes, List<Path> spillDirs) {

    /** @throws IllegalArgumentException for a non-positive size or no spill directory */
    public FlinkSlot {
        if (managedBytes <= 0) {
            throw new IllegalArgumentException("managed memory of a Flink slot must be positive: " + managedBytes);
        }
        if (spillDirs.isEmpty()) {
            throw new IllegalArgumentException("a Flink slot needs at least one spill directory");
        }
        spillDirs = List.copyOf(spillDirs);
    }

    /** A slot share over spill roots given as Flink gives paths ({@code TaskManagerRuntimeInfo.getTmpDirectories()}). */
    public static FlinkSlot of(long managedBytes, String[] spillDirs) {
        return new FlinkSlot(managedBytes, Arrays.stream(spillDirs).map(Path::of).toList());
    }
}
