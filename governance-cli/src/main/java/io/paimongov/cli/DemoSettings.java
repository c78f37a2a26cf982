package io.paimongov.cli;

import io.paimongov.tck.TableModes;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import java.nio.file.Path;

/**
 * A validated demo job: what to generate, how to lay out the table and how to govern the write.
 * Built by {@link DemoCommand} from the command line; every value is already in range.
 *
 * @param provider the provider that governs the write
 * @param options the governance options (budget, page size, spill dirs, spill byte limit)
 * @param rows rows to write
 * @param keys distinct {@code k} values per partition
 * @param partitions distinct {@code p} values
 * @param table the table mode ({@code --table}): primary key with fixed or dynamic buckets, deletion
 *     vectors, the lookup changelog producer, append with or without buckets, the postpone bucket
 * @param buckets the table's bucket count, for the modes of fixed buckets
 * @param valueBytes length of each value
 * @param format the table's file format: parquet, orc or avro
 * @param warehouse the warehouse directory, or null for a fresh temporary one
 * @param replace whether to drop and recreate a table the warehouse holds already ({@code --replace});
 *     without it, the run continues into that table
 * @param keep whether to keep a temporary warehouse after the run
 * @param cancelAfterRows cancel from another thread once this many rows were written; -1 for never
 * @param seed the generator's seed
 * @param timeline the SVG file to draw the write's memory timeline into, or null for none
 */
record DemoSettings(
        GovernanceProvider provider,
        GovernanceOptions options,
        int rows,
        int keys,
        int partitions,
        TableModes table,
        int buckets,
        int valueBytes,
        String format,
        Path warehouse,
        boolean replace,
        boolean keep,
        long cancelAfterRows,
        long seed,
        Path timeline) {

    /** Whether every row is an insert of a key of its own (append tables keep every row). */
    boolean appendOnly() {
        return !table.updates();
    }

    boolean cancels() {
        return cancelAfterRows >= 0;
    }
}
