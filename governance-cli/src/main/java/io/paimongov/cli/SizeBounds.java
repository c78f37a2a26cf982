package io.paimongov.cli;

import io.paimongov.runtime.config.GovernanceOptions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Upper bounds of the command line's size options that no setting of a provider can make sane, so
 * that a typo such as {@code --budget 10t} is refused before anything runs instead of failing late
 * or never applying:
 *
 * <ul>
 *   <li>a memory budget is at most this machine's memory ({@link #machineMemoryBytes}), whatever the
 *       provider: no allocator can give more (the heap provider also refuses, when the write opens, a
 *       budget larger than the JVM's heap can give);
 *   <li>a spill byte limit is at most what the file systems of the spill directories hold in all: a
 *       larger one never applies, the disk fills first.
 * </ul>
 *
 * Stateless and thread-safe. Each check returns null when the value is within its bound, else the
 * reason, naming the value and the bound in bytes.
 */
final class SizeBounds {

    /** The bound when the machine's memory cannot be read: 1 TiB. */
    static final long UNKNOWN_MEMORY_BOUND = 1L << 40;

    private SizeBounds() {}

    /**
     * This machine's memory as the JVM sees it (a container's limit inside a container), or {@link
     * #UNKNOWN_MEMORY_BOUND} when the platform does not say.
     */
    static long machineMemoryBytes() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            long total = sun.getTotalMemorySize();
            if (total > 0) {
                return total;
            }
        }
        return UNKNOWN_MEMORY_BOUND;
    }

    /**
     * The bytes of a {@code --budget} value (the syntax of {@code governance.memory.budget}), at most
     * this machine's memory.
     *
     * @throws IllegalArgumentException naming {@code --budget} and why the value is refused
     */
    static long budgetOption(String value) {
        long bytes;
        try {
            bytes = GovernanceOptions.defaults().with(GovernanceOptions.MEMORY_BUDGET, value).budgetBytes();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid value for option '--budget': " + e.getMessage(), e);
        }
        String tooLarge = budget(bytes, machineMemoryBytes());
        if (tooLarge != null) {
            throw new IllegalArgumentException("Invalid value for option '--budget': " + tooLarge);
        }
        return bytes;
    }

    /** Null when {@code budgetBytes} fits in {@code memoryBytes}, else why not. */
    static String budget(long budgetBytes, long memoryBytes) {
        if (budgetBytes <= memoryBytes) {
            return null;
        }
        return String.format(Locale.ROOT,
                "%d bytes (%s) is more than this machine's memory, %d bytes (%s): no provider can give it",
                budgetBytes, DemoReport.bytes(budgetBytes), memoryBytes, DemoReport.bytes(memoryBytes));
    }

    /**
     * Null when {@code maxBytes} is unlimited ({@link Long#MAX_VALUE}) or at most the total size of
     * the distinct file stores of {@code spillDirs}, else why not. A directory whose store cannot be
     * read does not count against the limit (the write reports it when it spills).
     */
    static String spillMaxBytes(long maxBytes, List<Path> spillDirs) {
        if (maxBytes == Long.MAX_VALUE) {
            return null;
        }
        List<FileStore> stores = new ArrayList<>();
        long total = 0;
        for (Path dir : spillDirs) {
            try {
                FileStore store = Files.getFileStore(dir);
                if (!stores.contains(store)) {
                    stores.add(store);
                    total += store.getTotalSpace();
                }
            } catch (IOException | SecurityException e) {
                return null;
            }
        }
        if (stores.isEmpty() || maxBytes <= total) {
            return null;
        }
        return String.format(Locale.ROOT,
                "%d bytes (%s) is more than the %d bytes (%s) the file systems of the spill directories %s hold;"
                        + " the disk would fill before the limit applies (use 'unlimited' for no limit)",
                maxBytes, DemoReport.bytes(maxBytes), total, DemoReport.bytes(total), spillDirs);
    }
}
