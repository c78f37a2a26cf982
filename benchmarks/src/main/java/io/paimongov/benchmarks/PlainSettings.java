package io.paimongov.benchmarks;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.WriteFootprint;
import java.util.HashMap;
import java.util.Map;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.table.FileStoreTable;

/**
 * The table options plain Paimon writes with when it is compared with a governed write, in two
 * lines: {@link #sameAsGoverned}, every option a user could set to the value the governed write
 * chose, which is the comparison the benchmarks judge; and {@link #defaults}, Paimon's own defaults
 * with only the nominal write buffer given, which the reports show beside it.
 *
 * <p>Stateless; thread-safe.
 */
public final class PlainSettings {

    private PlainSettings() {}

    /**
     * The options a governed write of {@code table} under {@code budgetBytes} sets on its table
     * ({@link WriteFootprint#tableOptions()}, planned as the write plans them, with the default page
     * size: row groups and stripes, format pages, a spillable buffer, the spill merge fan-in and
     * codec, synchronous file writes, the table mode's own) and {@code write-buffer-size} = the
     * budget. Plain Paimon also gets an IOManager wherever the governed write spills.
     */
    public static Map<String, String> sameAsGoverned(FileStoreTable table, long budgetBytes) {
        Map<String, String> options = new HashMap<>(
                WriteFootprint.plan(table, budgetBytes, GovernanceOptions.of(Map.of()).pageSize()).tableOptions());
        options.put(CoreOptions.WRITE_BUFFER_SIZE.key(), Long.toString(budgetBytes));
        return options;
    }

    /** Paimon's defaults, with {@code write-buffer-size} = {@code budgetBytes} (the nominal buffer a user gives it). */
    public static Map<String, String> defaults(long budgetBytes) {
        return Map.of(CoreOptions.WRITE_BUFFER_SIZE.key(), Long.toString(budgetBytes));
    }
}
