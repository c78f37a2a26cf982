package io.paimongov.offheap;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.spill.SpillScope;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/** Governed writes on real tables for one test: options, the open context, and what is left after. */
final class Writes {

    static final int ROWS = Integer.getInteger("governance.test.rows", 60_000);

    final Path spillRoot;
    ResourceContext context;

    Writes(Path root) throws IOException {
        this.spillRoot = Files.createDirectories(root.resolve("spill"));
    }

    /** Options for provider {@code provider} with {@code budget}, this test's spill root and {@code more}. */
    GovernanceOptions options(String provider, String budget, String... more) {
        Map<String, String> values = new HashMap<>();
        values.put(GovernanceOptions.PROVIDER, provider);
        values.put(GovernanceOptions.MEMORY_BUDGET, budget);
        values.put(GovernanceOptions.SPILL_DIRS, spillRoot.toString());
        for (int i = 0; i < more.length; i += 2) {
            values.put(more[i], more[i + 1]);
        }
        return GovernanceOptions.of(values);
    }

    /** A batch write whose provider is found by name, as an engine finds it. */
    GovernedTableWrite batch(FileStoreTable table, GovernanceOptions options, EngineEnvironment environment) {
        context = ResourceContext.open("test-write", options, environment);
        return GovernedTableWrite.batch(table, context);
    }

    /** Writes every row, prepares and commits, closes. */
    void writeAndCommit(FileStoreTable table, GovernanceOptions options, EngineEnvironment environment, List<InternalRow> rows)
            throws Exception {
        try (GovernedTableWrite write = batch(table, options, environment)) {
            for (InternalRow row : rows) {
                write.write(row);
            }
            write.prepareCommit().commit();
        }
    }

    List<Path> spillScopes() throws IOException {
        try (Stream<Path> s = Files.list(spillRoot)) {
            return s.filter(p -> p.getFileName().toString().startsWith(SpillScope.PREFIX)).toList();
        }
    }
}
