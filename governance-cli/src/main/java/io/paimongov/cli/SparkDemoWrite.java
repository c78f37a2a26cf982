package io.paimongov.cli;

import io.paimongov.connector.spark.GovernedWriteReport;
import io.paimongov.connector.spark.GovernedWriteReports;
import io.paimongov.connector.spark.sql.GovernedSparkCatalog;
import io.paimongov.runtime.tables.PaimonPaths;
import io.paimongov.spark.SparkGovernanceProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The demo's write through Spark SQL ({@code --provider spark}): a local session ({@code local[2]},
 * its local dir the spill root) with the governed catalog on the warehouse, the demo's rows from
 * one task (made again there from the {@link DemoRecipe}, in the order the model makes them), and
 * one {@code INSERT INTO} statement written on one channel ({@code governance.spark.write-channels}
 * = 1): one governed write, as the heap demo has one. Spark SQL's {@code INSERT} carries no row
 * kind, so the rows are upserts only (a row drawn to delete its key overwrites it; the model does
 * the same). The write's metrics come from Spark's accumulators ({@link GovernedWriteReports}).
 */
final class SparkDemoWrite {

    private static final Duration LISTENER_WAIT = Duration.ofSeconds(30);

    private SparkDemoWrite() {}

    static EngineWrite run(DemoSettings s, Path warehouse, Path spillRoot) throws Exception {
        String prefix = "spark.sql.catalog." + SqlEngine.CATALOG;
        SparkSession.Builder builder = SparkSession.builder()
                .master("local[2]")
                .appName("paimon-governance demo")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.local.dir", spillRoot.toString())
                .config(prefix, GovernedSparkCatalog.class.getName())
                .config(prefix + ".warehouse", PaimonPaths.option(warehouse))
                .config(prefix + ".governance.spark.write-channels", "1");
        DemoEngines.catalogOptions(s).forEach((k, v) -> builder.config(prefix + "." + k, v));
        SparkSession spark = builder.getOrCreate();
        try (GovernedWriteReports reports = GovernedWriteReports.register(spark)) {
            DemoRecipe recipe = DemoRecipe.of(s, warehouse, false);
            int rows = s.rows();
            JavaRDD<Row> input = JavaSparkContext.fromSparkContext(spark.sparkContext())
                    .parallelize(List.of(0), 1)
                    .mapPartitions(ignored -> new DemoRows(recipe, rows));
            StructType schema = new StructType()
                    .add("p", DataTypes.IntegerType, false)
                    .add("k", DataTypes.IntegerType, false)
                    .add("v", DataTypes.StringType, true);
            spark.createDataFrame(input, schema).createOrReplaceTempView("demo_input");
            GovernedWriteReports.Mark mark = reports.mark(LISTENER_WAIT);
            spark.sql("INSERT INTO " + SqlEngine.CATALOG + "." + DemoTable.DATABASE + "." + DemoTable.TABLE
                    + " SELECT p, k, v FROM demo_input");
            GovernedWriteReport report = reports.since(mark, LISTENER_WAIT);
            WriteSummary writes = SparkSqlEngine.summary(report);
            return new EngineWrite(writes.inputRows(), true, false, writes, SparkGovernanceProvider.heldBytes(),
                    EngineWrite.scopeFilesUnder(spillRoot), spillRoot);
        } finally {
            spark.stop();
        }
    }

    /** The demo's rows in the one input task, made again from the recipe. */
    private static final class DemoRows implements Iterator<Row> {
        private final DemoWorkload workload;
        private final int rows;
        private int made;

        DemoRows(DemoRecipe recipe, int rows) throws Exception {
            this.workload = recipe.workloadInTask();
            this.rows = rows;
        }

        @Override
        public boolean hasNext() {
            return made < rows;
        }

        @Override
        public Row next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            made++;
            return RowFactory.create(DemoRecipe.values(workload.next()));
        }
    }
}
