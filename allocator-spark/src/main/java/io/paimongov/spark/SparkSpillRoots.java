package io.paimongov.spark;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources.SpillLocations;
import io.paimongov.spi.ProviderOptions;
import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.spark.SparkEnv;
import org.apache.spark.storage.DiskBlockManager;

/**
 * Where a write's spill scope goes: {@code governance.spill.dirs} when it is set; else the local
 * directories of Spark's {@link DiskBlockManager} (the environment's, or the executor's through
 * {@code SparkEnv.get().blockManager().diskBlockManager().localDirs()}, {@code private[spark]} but
 * callable from Java): the {@code blockmgr-*} directories under {@code spark.local.dir} / {@code
 * SPARK_LOCAL_DIRS}, which Spark spreads over its disks and deletes when the executor stops. A killed
 * executor deletes nothing, and the writes of other executors sweep only their own dirs: its scopes
 * stay until the cluster manager removes the application's local dirs (a standalone Worker does when
 * the application ends). Outside Spark without either, the option's default.
 *
 * <p>Stateless; thread-safe.
 */
final class SparkSpillRoots {

    private SparkSpillRoots() {}

    static SpillLocations resolve(ProviderOptions options, EngineEnvironment environment) {
        List<Path> roots =
                options.spillDirsGiven()
                        ? options.spillDirs()
                        : sparkLocalDirs(environment).orElseGet(options::spillDirs);
        return SpillLocations.of(roots, options.spillMaxBytes());
    }

    private static Optional<List<Path>> sparkLocalDirs(EngineEnvironment environment) {
        Optional<DiskBlockManager> disks = environment.find(DiskBlockManager.class);
        if (disks.isEmpty() && SparkEnv.get() != null) {
            disks = Optional.of(SparkEnv.get().blockManager().diskBlockManager());
        }
        return disks.map(d -> Arrays.stream(d.localDirs()).map(File::toPath).toList()).filter(l -> !l.isEmpty());
    }
}
