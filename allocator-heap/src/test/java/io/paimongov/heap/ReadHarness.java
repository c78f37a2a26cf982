package io.paimongov.heap;

import io.paimongov.fixtures.ObservedProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.read.GovernedSplitReader;
import io.paimongov.runtime.read.GovernedTableRead;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.EngineEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.Split;

/** Opens governed reads on the heap provider, observed, and reads tables of {@code SortedRunTable}'s shape. */
final class ReadHarness implements AutoCloseable {

    final ObservedProvider provider = new ObservedProvider(new HeapGovernanceProvider());
    final Path spillRoot;
    final ResourceContext context;

    ReadHarness(Path root, String budget) throws IOException {
        this.spillRoot = Files.createDirectories(root.resolve("spill"));
        this.context = ResourceContext.open("read-test", provider,
                GovernanceOptions.of(Map.of(GovernanceOptions.MEMORY_BUDGET, budget, GovernanceOptions.SPILL_DIRS, spillRoot.toString())),
                EngineEnvironment.standalone());
    }

    GovernedTableRead open(FileStoreTable table) {
        return GovernedTableRead.open(table, context);
    }

    /** Every row of every split of {@code read}: k to v, as the rows come (a later row of a key would win). */
    static Map<Integer, String> readAll(GovernedTableRead read) throws Exception {
        Map<Integer, String> rows = new TreeMap<>();
        for (Split split : read.plan()) {
            try (GovernedSplitReader reader = read.reader(split)) {
                RecordReader.RecordIterator<InternalRow> batch;
                while ((batch = reader.readBatch()) != null) {
                    InternalRow row;
                    while ((row = batch.next()) != null) {
                        rows.put(row.getInt(0), row.isNullAt(1) ? null : row.getString(1).toString());
                    }
                    batch.releaseBatch();
                }
            }
        }
        return rows;
    }

    /** Spill files in the context's spill scope now (its lease aside). */
    long spillFiles() throws IOException {
        Path scope = context.spillScopeDir();
        if (!Files.exists(scope)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(scope)) {
            return files.filter(f -> Files.isRegularFile(f) && !f.getFileName().toString().equals(SpillScope.LEASE)).count();
        }
    }

    /** What the heap allocator has given out now, by its own counter. */
    long engineUsed() {
        return provider.lastOpened().usedBytes();
    }

    /** The heap allocator's own peak. */
    long enginePeak() {
        return provider.lastOpened().peakUsedBytes().orElseThrow();
    }

    @Override
    public void close() {
        context.close();
    }
}
