package io.paimongov.spi;

import java.nio.file.Path;
import java.util.List;

/**
 * The engine's temp directories for spill files and the byte budget they may take. The runtime
 * creates one private spill scope per write under one of {@link #roots()}.
 *
 * <p>Immutable values; thread-safe. {@link #of} builds one from plain values.
 */
public interface SpillLocations {

    /** Directories spill scopes may be created in; at least one, each absolute. */
    List<Path> roots();

    /** The most bytes this write's spill files may take on disk at once. */
    long maxBytes();

    static SpillLocations of(List<Path> roots, long maxBytes) {
        if (roots.isEmpty()) {
            throw new IllegalArgumentException("spill roots must not be empty");
        }
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("spill max bytes must be positive: " + maxBytes);
        }
        List<Path> absolute = roots.stream().map(p -> p.toAbsolutePath().normalize()).toList();
        return new SpillLocations() {
            @Override
            public List<Path> roots() {
                return absolute;
            }

            @Override
            public long maxBytes() {
                return maxBytes;
            }
        };
    }
}
