package io.paimongov.reliability;

import io.paimongov.fixtures.TestTables;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.PreparedCommit;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;

/**
 * One of two committers racing in two JVMs: a governed batch write of {@code rows} rows ({@link
 * #row}) into partition 0 of the table, whose commit waits at a {@link GatedFileIO} gate before it
 * writes its snapshot. Writes what became of its commit to the outcome file ({@code committed}, or
 * the exception's class and message) and exits 0 when committed, 1 when the commit failed.
 */
final class RacingCommitter {

    private RacingCommitter() {}

    /** Arguments: warehouse, table name, first key, rows, gate (path prefix), outcome file. */
    public static void main(String[] args) throws Exception {
        FileStoreTable opened = TestTables.open(Path.of(args[0]).toUri().toString(), args[1]);
        FileStoreTable table = FileStoreTableFactory.create(new GatedFileIO(Path.of(args[4])), opened.location(),
                opened.schema(), opened.catalogEnvironment());
        int first = Integer.parseInt(args[2]);
        int rows = Integer.parseInt(args[3]);
        GovernanceOptions options = GovernanceOptions.of(Map.of(
                GovernanceOptions.MEMORY_BUDGET, "8m", GovernanceOptions.ORPHANS_OLDER_THAN, "off"));
        String outcome;
        try (GovernedTableWrite write = GovernedTableWrite.batch(table,
                ResourceContext.open("racing", Allocator.HEAP.provider(), options, EngineEnvironment.standalone()))) {
            for (int i = 0; i < rows; i++) {
                write.write(row(first + i, args[1] + "@" + Path.of(args[4]).getFileName()));
            }
            PreparedCommit prepared = write.prepareCommit();
            try {
                prepared.commit();
                outcome = "committed";
            } catch (Exception e) {
                outcome = e.getClass().getName() + ": " + e.getMessage();
            }
        }
        Files.writeString(Path.of(args[5]), outcome);
        System.exit(outcome.equals("committed") ? 0 : 1);
    }

    /** Key {@code k} of partition 0, its value naming the writer. */
    static InternalRow row(int k, String who) {
        return GenericRow.of(0, k, BinaryString.fromString(who + "#" + k));
    }
}
