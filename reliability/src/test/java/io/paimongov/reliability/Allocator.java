package io.paimongov.reliability;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.Providers;

/** The four allocator modules, each found by its provider name as an engine would find it. */
enum Allocator {
    HEAP("heap"),
    OFFHEAP("offheap"),
    FLINK("flink"),
    SPARK("spark");

    final String id;

    Allocator(String id) {
        this.id = id;
    }

    /** The module's provider, found through {@code ServiceLoader}. */
    GovernanceProvider provider() {
        return Providers.load(id, Allocator.class.getClassLoader());
    }

    /**
     * Whether writes set {@code governance.spill.dirs}: Spark's spill goes under its own local dirs
     * unless the option is set, so its writes leave it unset (the kill test sets it, to have one
     * root the next process sweeps); Flink takes the slot's spill dirs whatever the option says.
     */
    boolean setsSpillDirs() {
        return this != SPARK;
    }

    static Allocator of(String id) {
        for (Allocator a : values()) {
            if (a.id.equals(id)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown allocator '" + id + "'");
    }
}
