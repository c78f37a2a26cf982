package io.paimongov.reliability;

import io.paimongov.fixtures.ObservedProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.paimon.table.FileStoreTable;

/**
 * One cell's world on the local disk: an allocator's real provider (observed), its standalone
 * engine with the suite's budget and its temp space under {@code engine/}, a spill root {@code
 * spill/} and a warehouse {@code warehouse/} on the {@code faulty://} scheme holding one table.
 *
 * <p>A retry runs on a fresh engine over the same directories, as a task retry or a restarted
 * process would: {@link #restartEngine()}. Not thread-safe: the cell's thread drives it.
 */
final class World implements AutoCloseable {

    static final String TABLE = "t";

    final Allocator allocator;
    final Settings settings;
    final Path dir;
    final Path engineDir;
    final Path spillRoot;
    final Path warehouse;
    final ObservedProvider provider;
    final FileStoreTable table;
    private StandaloneEngine engine;
    private long engineStart;

    World(Allocator allocator, Settings settings, Path dir) throws Exception {
        this.allocator = allocator;
        this.settings = settings;
        this.dir = dir;
        this.engineDir = Files.createDirectories(dir.resolve("engine"));
        this.spillRoot = Files.createDirectories(dir.resolve("spill"));
        this.warehouse = Files.createDirectories(dir.resolve("warehouse"));
        this.provider = new ObservedProvider(allocator.provider());
        this.table = Tables.create(warehouse, TABLE);
        startEngine();
    }

    private void startEngine() {
        engine =
                provider.standalone(settings.budgetBytes(), engineDir)
                        .orElseThrow(() -> new IllegalStateException(allocator.id + " has no standalone engine"));
        engineStart = engine.engineUsedBytes();
    }

    StandaloneEngine engine() {
        return engine;
    }

    /** What the engine counted as used when it started. */
    long engineStart() {
        return engineStart;
    }

    /**
     * Closes the engine and starts a fresh one on the same directories.
     *
     * @return what closing the old engine threw (an engine's own leak check), or null
     */
    Throwable restartEngine() {
        Throwable error = closeEngine();
        startEngine();
        return error;
    }

    /**
     * Closes the engine (idempotent).
     *
     * @return what closing it threw (an engine's own leak check), or null
     */
    Throwable closeEngine() {
        try {
            engine.close();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** The suite's options for a write in this world, plus {@code extra} key-value pairs. */
    GovernanceOptions options(String... extra) {
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.MEMORY_BUDGET, Long.toString(settings.budgetBytes()));
        values.put(GovernanceOptions.PAGE_SIZE, "16k");
        if (allocator.setsSpillDirs()) {
            values.put(GovernanceOptions.SPILL_DIRS, spillRoot.toString());
        }
        for (int i = 0; i + 1 < extra.length; i += 2) {
            values.put(extra[i], extra[i + 1]);
        }
        return GovernanceOptions.of(values);
    }

    /**
     * Spill scopes ({@code paimon-gov-*}) and spill files ({@code *.channel}) anywhere under the
     * spill root, the engine's temp space and every spill root a write of this world was given.
     */
    List<String> spillLeftovers() {
        Set<Path> roots = new TreeSet<>(List.of(spillRoot, engineDir));
        provider.opened().forEach(o -> roots.addAll(o.spill().roots()));
        List<String> left = new ArrayList<>();
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(root)) {
                walk.filter(p -> p.getFileName().toString().startsWith(SpillScope.PREFIX) || p.toString().endsWith(".channel"))
                        .forEach(p -> left.add(p.toString()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return left;
    }

    /** Closes the engine; the directory stays for the caller to delete or keep. */
    @Override
    public void close() {
        closeEngine();
    }
}
