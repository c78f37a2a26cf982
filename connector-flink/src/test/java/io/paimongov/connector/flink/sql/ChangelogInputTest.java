package io.paimongov.connector.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming {@code INSERT INTO} of a changelog from a DataStream ({@code fromChangelogStream})
 * into a primary-key table that already holds rows, through the governed catalog ({@code g}) and
 * Paimon's own ({@code p}): both give the same table for the same statement, and which deletes reach
 * it is the planner's choice, from the input's changelog mode (docs/flink.md, "Deletes from a
 * DataStream"). The input deletes keys an earlier job wrote, and a key it wrote itself.
 *
 * <ul>
 *   <li>Inserts and deletes with the primary key declared: no normalisation, every row reaches the
 *       writers, the table is the earlier rows with the input applied in order (a plain map).
 *   <li>An upsert stream: Flink's {@code ChangelogNormalize} keeps the rows this job has seen and
 *       drops a delete of a key it has not, so the earlier job's keys stay (as with Paimon's sink).
 *   <li>Inserts and deletes without the key declared: the planner adds its sink upsert
 *       materializer, which both sinks refuse when their writers start, writing nothing; with
 *       {@code table.exec.sink.upsert-materialize} = {@code NONE} the rows reach the writers as they
 *       come, as with the key declared.
 * </ul>
 */
class ChangelogInputTest {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = SqlCluster.extension(REPORTER, "64m");

    private static final ChangelogMode INSERTS_AND_DELETES =
            ChangelogMode.newBuilder().addContainedKind(RowKind.INSERT).addContainedKind(RowKind.DELETE).build();

    @TempDir Path dir;

    /** Keys 0 to 9 in partition a, written by an earlier job. */
    private static List<Row> earlier() {
        List<Row> rows = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            rows.add(Row.of(k, "old-" + k, "a"));
        }
        return rows;
    }

    /** Deletes keys 0 to 4 (the earlier job's), overwrites 5, inserts and deletes 10, inserts 11. */
    private static List<Row> changes() {
        List<Row> rows = new ArrayList<>();
        for (int k = 0; k < 5; k++) {
            rows.add(Row.ofKind(RowKind.DELETE, k, null, "a"));
        }
        rows.add(Row.of(5, "new-5", "a"));
        rows.add(Row.of(10, "new-10", "a"));
        rows.add(Row.ofKind(RowKind.DELETE, 10, null, "a"));
        rows.add(Row.of(11, "new-11", "a"));
        return rows;
    }

    @Test
    void insertsAndDeletesReachTheTableAsTheyComeThroughEitherSink() throws Exception {
        SqlSession s = write(INSERTS_AND_DELETES, true);

        List<String> model = applied(earlier(), changes(), false);
        assertThat(model).hasSize(6);
        assertThat(content("t_p")).isEqualTo(model);
        assertThat(content("t_g")).isEqualTo(model);
        assertThat(s.sql.explainSql("INSERT INTO g.db.t_g SELECT * FROM changes")).doesNotContain("ChangelogNormalize");
    }

    @Test
    void anUpsertStreamLosesDeletesOfKeysTheJobHasNotSeenThroughEitherSink() throws Exception {
        SqlSession s = write(ChangelogMode.upsert(), true);

        List<String> model = applied(earlier(), changes(), true);
        assertThat(model).hasSize(11);
        assertThat(content("t_p")).isEqualTo(model);
        assertThat(content("t_g")).isEqualTo(model);
        assertThat(s.sql.explainSql("INSERT INTO g.db.t_g SELECT * FROM changes")).contains("ChangelogNormalize");
    }

    @Test
    void withoutTheKeyDeclaredTheUpsertMaterializerIsRefusedByEitherSinkAndWithoutItDeletesReachTheTable() throws Exception {
        SqlSession s = prepare(INSERTS_AND_DELETES, false);
        if (plannerRefusesUpsertKeyMismatch(s)) {
            // Flink 2.3 on: the planner refuses the input before either sink is asked, the same for both
            for (String sink : List.of("p", "g")) {
                assertThatThrownBy(() -> s.run("INSERT INTO " + sink + ".db.t_" + sink + " SELECT * FROM changes"))
                        .hasStackTraceContaining("ON CONFLICT");
            }
        } else {
            assertThat(s.sql.explainSql("INSERT INTO g.db.t_g SELECT * FROM changes")).contains("upsertMaterialize=[true]");
            assertThatThrownBy(() -> s.run("INSERT INTO p.db.t_p SELECT * FROM changes"))
                    .hasStackTraceContaining("Sink materializer must not be used with Paimon sink");
            assertThatThrownBy(() -> s.run("INSERT INTO g.db.t_g SELECT * FROM changes"))
                    .hasStackTraceContaining("'table.exec.sink.upsert-materialize' to 'NONE'")
                    .hasStackTraceContaining("'db.t_g'");
        }
        List<String> held = applied(earlier(), List.of(), false);
        assertThat(content("t_p")).isEqualTo(held);
        assertThat(content("t_g")).isEqualTo(held);

        s.sql.getConfig().set(ExecutionConfigOptions.TABLE_EXEC_SINK_UPSERT_MATERIALIZE,
                ExecutionConfigOptions.UpsertMaterialize.NONE);
        assertThat(s.sql.explainSql("INSERT INTO g.db.t_g SELECT * FROM changes")).doesNotContain("upsertMaterialize");
        s.run("INSERT INTO p.db.t_p SELECT * FROM changes");
        s.run("INSERT INTO g.db.t_g SELECT * FROM changes");
        List<String> model = applied(earlier(), changes(), false);
        assertThat(content("t_p")).isEqualTo(model);
        assertThat(content("t_g")).isEqualTo(model);
    }

    /**
     * Whether this Flink's planner refuses a query whose upsert key differs from the sink's primary
     * key unless it says ON CONFLICT (Flink 2.3 on), rather than planning the upsert materializer
     * for the sink to accept or refuse (Flink 2.2). The matrix runs both (docs/compatibility.md).
     */
    private static boolean plannerRefusesUpsertKeyMismatch(SqlSession s) {
        try {
            s.sql.explainSql("INSERT INTO g.db.t_g SELECT * FROM changes");
            return false;
        } catch (ValidationException e) {
            if (e.getMessage() != null && e.getMessage().contains("ON CONFLICT")) {
                return true;
            }
            throw e;
        }
    }

    /** {@link #prepare}, then the changes written into both tables. */
    private SqlSession write(ChangelogMode mode, boolean keyed) {
        SqlSession s = prepare(mode, keyed);
        for (String sink : List.of("p", "g")) {
            s.run("INSERT INTO " + sink + ".db.t_" + sink + " SELECT * FROM changes");
        }
        return s;
    }

    /**
     * Tables t_p (written through Paimon's sink) and t_g (the governed one) holding the earlier
     * rows, and the view {@code changes} in {@code mode}, the key declared when {@code keyed}.
     */
    private SqlSession prepare(ChangelogMode mode, boolean keyed) {
        SqlSession s = SqlSession.streaming(dir.resolve("wh"), 200);
        s.view("earlier", earlier(), SqlSession.KVD);
        s.changelogView("changes", changes(), mode, keyed);
        for (String sink : List.of("p", "g")) {
            String table = sink + ".db.t_" + sink;
            s.exec("CREATE TABLE " + table + " (k INT, v STRING, d STRING, PRIMARY KEY (d, k) NOT ENFORCED)"
                    + " PARTITIONED BY (d) WITH ('bucket' = '2')");
            s.run("INSERT INTO " + table + " SELECT * FROM earlier");
        }
        return s;
    }

    /**
     * The table the rows give, as sorted {@code Row.toString()}: the last row per (d, k), a delete
     * removing its key; with {@code unseenDeletesDropped}, a delete of a key not in {@code changes}
     * before it is skipped.
     */
    private static List<String> applied(List<Row> earlier, List<Row> changes, boolean unseenDeletesDropped) {
        Map<String, Row> table = new TreeMap<>();
        earlier.forEach(r -> table.put(r.getField(2) + "/" + r.getField(0), r));
        Map<String, Row> seen = new TreeMap<>();
        for (Row r : changes) {
            String key = r.getField(2) + "/" + r.getField(0);
            if (r.getKind() == RowKind.DELETE) {
                if (!unseenDeletesDropped || seen.containsKey(key)) {
                    table.remove(key);
                }
                seen.remove(key);
            } else {
                table.put(key, r);
                seen.put(key, r);
            }
        }
        return SqlRows.sorted(table.values().stream().map(r -> Row.of(r.getField(0), r.getField(1), r.getField(2))).toList());
    }

    /** The table's rows, read by Paimon's own reader. */
    private List<String> content(String name) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new org.apache.paimon.fs.Path(dir.resolve("wh").toUri())))) {
            FileStoreTable table = (FileStoreTable) catalog.getTable(Identifier.create("db", name));
            ReadBuilder builder = table.newReadBuilder();
            try (RecordReader<InternalRow> reader = builder.newRead().createReader(builder.newScan().plan().splits())) {
                reader.forEachRemaining(r -> rows.add(Row.of(r.getInt(0), r.getString(1).toString(), r.getString(2).toString())));
            }
        }
        return SqlRows.sorted(rows);
    }
}
