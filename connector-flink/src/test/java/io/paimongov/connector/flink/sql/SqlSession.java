package io.paimongov.connector.flink.sql;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * A Flink SQL session on the test's MiniCluster with two catalogs on one warehouse: {@code g}, the
 * governed one ({@code 'type' = 'paimon-governed'}), and {@code p}, Paimon's own ({@code 'type' =
 * 'paimon'}), each with database {@code db}. Input rows come from a temporary view over a
 * non-parallel source ({@link #view}), so rows reach each writer in input order and a key's last
 * row is its last write. Called on the test thread.
 */
final class SqlSession {

    /** Rows of (k INT, v STRING, d STRING). */
    static final RowTypeInfo KVD = new RowTypeInfo(
            new TypeInformation<?>[] {Types.INT, Types.STRING, Types.STRING}, new String[] {"k", "v", "d"});

    final StreamExecutionEnvironment env;
    final StreamTableEnvironment sql;

    private SqlSession(StreamExecutionEnvironment env, StreamTableEnvironment sql) {
        this.env = env;
        this.sql = sql;
    }

    /** A batch session; {@code catalogOptions} go into the governed catalog's WITH ("'k' = 'v'", ...). */
    static SqlSession batch(Path warehouse, String... catalogOptions) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(2);
        return open(env, StreamTableEnvironment.create(env, EnvironmentSettings.inBatchMode()), warehouse, catalogOptions);
    }

    /** A streaming session checkpointing every {@code checkpointMillis}. */
    static SqlSession streaming(Path warehouse, long checkpointMillis, String... catalogOptions) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
        env.setParallelism(2);
        env.enableCheckpointing(checkpointMillis);
        return open(env, StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode()), warehouse, catalogOptions);
    }

    private static SqlSession open(StreamExecutionEnvironment env, StreamTableEnvironment sql, Path warehouse, String... catalogOptions) {
        SqlSession session = new SqlSession(env, sql);
        StringBuilder options = new StringBuilder();
        for (String option : catalogOptions) {
            options.append(", ").append(option);
        }
        session.exec("CREATE CATALOG g WITH ('type' = 'paimon-governed', 'warehouse' = '" + warehouse.toUri() + "'" + options + ")");
        session.exec("CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '" + warehouse.toUri() + "')");
        session.exec("CREATE DATABASE IF NOT EXISTS g.db");
        session.exec("USE CATALOG g");
        session.exec("USE db");
        return session;
    }

    /** Runs a statement and waits for its job, if it has one. */
    TableResult exec(String statement) {
        TableResult result = sql.executeSql(statement);
        try {
            result.await();
        } catch (Exception e) {
            throw new IllegalStateException("statement failed: " + statement, e);
        }
        return result;
    }

    /** The job of a DML statement, run to its end. */
    JobID run(String statement) {
        TableResult result = exec(statement);
        return result.getJobClient().orElseThrow().getJobID();
    }

    /** The rows a query returns, as {@code Row.toString()}. */
    List<String> query(String query) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = sql.executeSql(query).collect()) {
            it.forEachRemaining(r -> rows.add(r.toString()));
        }
        return rows;
    }

    /**
     * A temporary view {@code name} over the changelog {@code rows} (each with its row kind) of
     * {@link #KVD}, read in order by one task, in changelog {@code mode}, with primary key {@code (d,
     * k)} declared when {@code keyed}.
     */
    void changelogView(String name, List<Row> rows, ChangelogMode mode, boolean keyed) {
        Schema.Builder builder = Schema.newBuilder()
                .column("k", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .column("d", DataTypes.STRING().notNull());
        Schema schema = keyed ? builder.primaryKey("d", "k").build() : builder.build();
        sql.createTemporaryView(name, sql.fromChangelogStream(env.fromData(rows, KVD).setParallelism(1), schema, mode));
    }

    /** A temporary view {@code name} over {@code rows} of type {@code type}, read in order by one task. */
    void view(String name, List<Row> rows, RowTypeInfo type) {
        sql.createTemporaryView(name, sql.fromDataStream(env.fromData(rows, type).setParallelism(1)));
    }
}
