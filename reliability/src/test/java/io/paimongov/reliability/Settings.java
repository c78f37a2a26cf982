package io.paimongov.reliability;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The suite's size, from system properties (the parent POM passes the CI defaults): {@code
 * governance.reliability.rows} rows per faulty write, {@code governance.reliability.repeats} runs
 * of every cell (each with another seed and fault point), {@code governance.reliability.seed}, and
 * {@code governance.reliability.allocators} and {@code governance.reliability.faults} (comma-separated
 * subsets to run; the other cells are skipped and show as missing in the report).
 * The memory budget is fixed: small enough that every write spills.
 */
record Settings(int rows, int repeats, long seed, long budgetBytes, java.util.Set<Allocator> allocators, java.util.Set<Fault> faults) {

    static final String ROWS = "governance.reliability.rows";
    static final String REPEATS = "governance.reliability.repeats";
    static final String SEED = "governance.reliability.seed";
    static final String ALLOCATORS = "governance.reliability.allocators";
    static final String FAULTS = "governance.reliability.faults";

    Settings {
        if (rows < 2000) {
            throw new IllegalArgumentException(ROWS + " must be at least 2000 (the writes must spill): " + rows);
        }
        if (repeats < 1) {
            throw new IllegalArgumentException(REPEATS + " must be at least 1: " + repeats);
        }
    }

    static Settings fromSystemProperties() {
        return new Settings(
                Integer.getInteger(ROWS, 12_000),
                Integer.getInteger(REPEATS, 1),
                Long.getLong(SEED, 42),
                3L << 20,
                allocators(System.getProperty(ALLOCATORS, "")),
                faults(System.getProperty(FAULTS, "")));
    }

    /** Comma-separated fault ids; empty means all. */
    static java.util.Set<Fault> faults(String ids) {
        java.util.Set<Fault> chosen = java.util.EnumSet.noneOf(Fault.class);
        for (String id : ids.split(",")) {
            if (!id.isBlank()) {
                chosen.add(java.util.Arrays.stream(Fault.values())
                        .filter(f -> f.id.equals(id.strip()))
                        .findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("unknown fault '" + id.strip() + "' in " + FAULTS)));
            }
        }
        return chosen.isEmpty() ? java.util.EnumSet.allOf(Fault.class) : chosen;
    }

    /** Comma-separated provider names; empty means all four. */
    static java.util.Set<Allocator> allocators(String names) {
        java.util.Set<Allocator> chosen = java.util.EnumSet.noneOf(Allocator.class);
        for (String name : names.split(",")) {
            if (!name.isBlank()) {
                chosen.add(Allocator.of(name.strip()));
            }
        }
        return chosen.isEmpty() ? java.util.EnumSet.allOf(Allocator.class) : chosen;
    }

    /** The seed of one repeat of one cell: cells differ, repeats differ. */
    long seedOf(Allocator allocator, Fault fault, int repeat) {
        return seed + 1_000_003L * repeat + 1_009L * fault.ordinal() + 31L * allocator.ordinal();
    }

    /** The row at which a mid-write fault strikes in repeat {@code repeat}: a third of the way, then later. */
    int faultRow(int repeat) {
        return rows * (repeat % 3 + 1) / 4 - 1 - repeat / 3;
    }

    Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(ROWS, rows);
        m.put(REPEATS, repeats);
        m.put(SEED, seed);
        m.put(ALLOCATORS, allocators.stream().map(a -> a.id).toList().toString());
        m.put(FAULTS, faults.stream().map(f -> f.id).toList().toString());
        m.put("budgetBytes", budgetBytes);
        m.put("valueBytes", Tables.VALUE_BYTES);
        m.put("partitions", Tables.PARTITIONS);
        m.put("buckets", Tables.BUCKETS);
        return m;
    }
}
