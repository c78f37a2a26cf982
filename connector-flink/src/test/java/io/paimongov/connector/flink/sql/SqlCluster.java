package io.paimongov.connector.flink.sql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The MiniCluster of the SQL tests: one task manager with 2 slots (or as many as a test asks) and {@code managed} of managed
 * memory, Flink's metrics in an {@link InMemoryReporter}, three restarts allowed (a job that fails once
 * on purpose recovers).
 */
final class SqlCluster {

    private SqlCluster() {}

    static MiniClusterExtension extension(InMemoryReporter reporter, String managed) {
        return new MiniClusterExtension(() -> new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .setConfiguration(config(reporter, managed))
                .build());
    }

    /**
     * As {@link #extension(InMemoryReporter, String)}, with {@code slots} slots (a streaming job
     * beside batch jobs) and {@code tmp} as {@code io.tmp.dirs}, where the governed contexts spill.
     */
    static MiniClusterExtension extension(InMemoryReporter reporter, String managed, int slots, Path tmp) {
        Configuration config = config(reporter, managed);
        config.set(CoreOptions.TMP_DIRS, tmp.toString());
        return new MiniClusterExtension(() -> new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots)
                .setConfiguration(config)
                .build());
    }

    /** A new directory for a cluster's {@code io.tmp.dirs}, removed when the JVM exits. */
    static Path tmpDir() {
        try {
            Path dir = Files.createTempDirectory("sql-cluster-tmp");
            dir.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Configuration config(InMemoryReporter reporter, String managed) {
        Configuration config = new Configuration();
        config.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse(managed));
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, java.time.Duration.ofMillis(100));
        return reporter.addToConfiguration(config);
    }
}
