package io.paimongov.spi;

import java.nio.file.Path;
import java.util.List;

/**
 * The engine's temp directories for spill files and the byte budget they may take. Contract:
 * docs/spi.md, clauses SPILL.1-SPILL.3 and SPILL.8 (spill
 * only there); what the runtime does with them, SPILL.4-SPILL.7.
 *
 * <p>Immutable values; thread-safe. <b>Who calls:</b> the runtime, on the opening thread. {@link
 * #of} builds one from plain values.
 */
public interface SpillLocations {

    /** Directories spill scopes may be created in; at least one, each absolute (SPILL.1). */
    List<Path> roots();

    /** The most bytes this write's spill files may take on disk at once (SPILL.2). */
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
