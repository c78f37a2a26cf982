package io.paimongov.heap;

import io.paimongov.fixtures.TestTables;
import io.paimongov.fixtures.Workload;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * Run in a child JVM by {@link NothingOutsideTheRootsTest}: creates a primary-key table in the
 * warehouse {@code args[0]}, writes it through a governed write that spills under {@code args[1]},
 * commits, and prints the write's spill files; exits 0 when the table holds its model.
 */
public final class SpillingWriteMain {

    private SpillingWriteMain() {}

    public static void main(String[] args) throws Exception {
        Path warehouse = Path.of(args[0]);
        FileStoreTable table = TestTables.primaryKeyTable(warehouse, "t", 4, "parquet");
        Workload w = Workload.random(7, 30_000, 15_000, 2, 64);
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.PROVIDER, "heap",
                GovernanceOptions.MEMORY_BUDGET, "2m",
                GovernanceOptions.PAGE_SIZE, "16k",
                GovernanceOptions.SPILL_DIRS, args[1]));
        long spillFiles;
        try (GovernedTableWrite write =
                GovernedTableWrite.batch(table, ResourceContext.open("outside-check", options, EngineEnvironment.standalone()))) {
            for (InternalRow row : w.rows()) {
                write.write(row);
            }
            spillFiles = write.context().snapshot().spillFiles();
            write.prepareCommit().commit();
        }
        if (!TestTables.read(table).equals(w.expected())) {
            System.out.println("table differs from its model");
            System.exit(2);
        }
        System.out.println("spillFiles=" + spillFiles);
    }
}
