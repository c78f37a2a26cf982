package io.paimongov.benchmarks.cancel;

import io.paimongov.benchmarks.BenchTables;

/**
 * The table every cancelled job writes: {@code BenchTables}' primary-key Parquet table, with the
 * one option Paimon's Flink sink needs to take its write buffer from the slot's managed memory as
 * the governed sink does ({@code sink.use-managed-memory-allocator=true}; the governed write and
 * Paimon's Spark-style write ignore it). The same options for every side.
 */
final class CancelTables {

    private CancelTables() {}

    static BenchTables.Shape shape(int buckets) {
        return BenchTables.Shape.primaryKey(buckets).with("sink.use-managed-memory-allocator", "true");
    }
}
