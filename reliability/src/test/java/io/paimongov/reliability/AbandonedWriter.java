package io.paimongov.reliability;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * A child JVM's governed write that is killed with its work unfinished: it writes {@code rows} rows
 * ({@link #row}) into the table, prepares its commit (the data files are written and not
 * committed), writes the marker file and waits to be killed, as a process dies between
 * prepareCommit and commit. Its own orphan sweep is off, so it removes nothing.
 */
final class AbandonedWriter {

    private AbandonedWriter() {}

    /** Arguments: warehouse, table name, first key, rows, marker file. */
    public static void main(String[] args) throws Exception {
        FileStoreTable table = TestTables.open(Path.of(args[0]).toUri().toString(), args[1]);
        int first = Integer.parseInt(args[2]);
        int rows = Integer.parseInt(args[3]);
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, "8m", GovernanceOptions.ORPHANS_OLDER_THAN, "off"));
        ResourceContext context = ResourceContext.open("abandoned", Allocator.HEAP.provider(), options,
                EngineEnvironment.standalone());
        GovernedTableWrite write = GovernedTableWrite.batch(table, context);
        for (int i = 0; i < rows; i++) {
            write.write(row(first + i, "abandoned"));
        }
        PreparedCommit prepared = write.prepareCommit();
        System.err.println("prepared " + prepared.messages().size() + " messages; waiting to be killed");
        ChildJvm.touch(Path.of(args[4]));
        Thread.sleep(600_000);
        System.exit(3);
    }

    /** Key {@code k} in partition {@code k % 2} with a value naming {@code who}. */
    static InternalRow row(int k, String who) {
        return GenericRow.of(k % 2, k, BinaryString.fromString(who + "-" + k));
    }
}
