package io.paimongov.connector.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class SmokeTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(() -> new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).setConfiguration(conf()).build());

    static Configuration conf() {
        Configuration c = new Configuration();
        c.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("32m"));
        return c;
    }

    @TempDir Path dir;

    @Test
    void smoke() throws Exception {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("parallelism.default", "2");
        t.executeSql("CREATE CATALOG g WITH ('type'='paimon-governed','warehouse'='" + dir.toUri() + "')");
        t.executeSql("USE CATALOG g");
        t.executeSql("CREATE TABLE t (k INT, v STRING, d STRING, PRIMARY KEY (k, d) NOT ENFORCED) PARTITIONED BY (d) WITH ('bucket'='2')");
        t.executeSql("INSERT INTO t VALUES (1,'a','x'),(2,'b','y'),(1,'c','x')").await();
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql("SELECT * FROM t").collect()) { it.forEachRemaining(r -> rows.add(r.toString())); }
        t.executeSql("CREATE TABLE moves (k INT, v STRING, d STRING, PRIMARY KEY (k) NOT ENFORCED) PARTITIONED BY (d)");
        t.executeSql("INSERT INTO moves VALUES (1,'a','x'),(2,'b','y')").await();
        t.executeSql("INSERT INTO moves VALUES (1,'c','y')").await();
        try (CloseableIterator<Row> it = t.executeSql("SELECT * FROM moves").collect()) { it.forEachRemaining(r -> rows.add("cross " + r)); }
        t.executeSql("INSERT OVERWRITE t PARTITION (d='x') SELECT 9, 'z'").await();
        try (CloseableIterator<Row> it = t.executeSql("SELECT * FROM t").collect()) { it.forEachRemaining(r -> rows.add("ow " + r)); }
        System.err.println(rows);
        assertThat(rows).containsExactlyInAnyOrder("+I[1, c, x]", "+I[2, b, y]", "cross +I[1, c, y]", "cross +I[2, b, y]", "ow +I[2, b, y]", "ow +I[9, z, x]");
    }
}
