package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spi.metrics.MetricsSnapshot;
import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Example;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

/**
 * COMPACT-*: parallel compaction keeps each bucket serial and stays within its threads. A table of
 * 8 buckets gets a level-0 backlog from plain write-only commits; a governed write with two
 * compaction threads then touches every bucket and commits, draining the backlog.
 */
interface CompactionRules extends TckContext {

    int BUCKETS = 8;

    /** The drain's metrics, the table, and whether it holds what it should. */
    record Drain(MetricsSnapshot metrics, boolean contentRight, int engineMaxThreads) {}

    default Drain drain(String threads) throws Exception {
        Workload shape = new Workload(1, 1, 1, 1, BUCKETS, "deduplicate", "parquet", 32);
        try (TckSubject s = subject(32L << 20)) {
            FileStoreTable table = shape.createTable(s.warehouse, "compact");
            Map<Long, Workload.Value> model = new HashMap<>();
            Random random = new Random(17);
            FileStoreTable writeOnly = table.copy(Map.of("write-only", "true"));
            for (int commit = 0; commit < 6; commit++) {
                BatchWriteBuilder builder = writeOnly.newBatchWriteBuilder();
                try (BatchTableWrite write = builder.newWrite(); BatchTableCommit committer = builder.newCommit()) {
                    for (int i = 0; i < 1500; i++) {
                        put(write, model, random.nextInt(4000), "c" + commit + "-" + i);
                    }
                    committer.commit(write.prepareCommit());
                }
            }
            ResourceContext context =
                    ResourceContext.open(
                            "tck-compact", s.provider, s.options(GovernanceOptions.COMPACTION_TASK_THREADS, threads), s.environment());
            int engineMax = s.provider.opened().get(s.provider.opened().size() - 1).vendor.compaction().maxThreads();
            try (GovernedTableWrite write = GovernedTableWrite.batch(table, context)) {
                for (int k = 0; k < 400; k++) {
                    write.write(GenericRow.of(0, k, BinaryString.fromString("drain-" + k), (long) k));
                    model.put(Workload.key(0, k), new Workload.Value("drain-" + k, (long) k));
                }
                write.prepareCommit().commit();
            }
            return new Drain(context.snapshot(), Workload.read(table).equals(model), engineMax);
        }
    }

    private static void put(BatchTableWrite write, Map<Long, Workload.Value> model, int k, String v) throws Exception {
        write.write(GenericRow.of(0, k, BinaryString.fromString(v), (long) k));
        model.put(Workload.key(0, k), new Workload.Value(v, (long) k));
    }

    @Example
    @Verifies(Rule.COMPACT_1)
    default void required_COMPACT1_neverTwoCompactionsOfOneBucketAtOnce() throws Exception {
        Drain d = drain("2");
        MetricsSnapshot m = d.metrics();
        check(Rule.COMPACT_1, m.compactionCount() >= BUCKETS,
                "only " + m.compactionCount() + " compactions completed for " + BUCKETS + " buckets with a backlog");
        check(Rule.COMPACT_1, m.compactionBucketOverlaps() == 0,
                m.compactionBucketOverlaps() + " times two compactions of one bucket ran at once");
        check(Rule.COMPACT_1, d.contentRight(), "after compaction the table does not hold what was written");
    }

    @Example
    @Verifies(Rule.COMPACT_2)
    default void required_COMPACT2_concurrencyStaysWithinTheThreadSetting() throws Exception {
        Drain d = drain("2");
        MetricsSnapshot m = d.metrics();
        long bound = Math.min(2, d.engineMaxThreads());
        check(Rule.COMPACT_2, m.compactionThreads() == bound,
                "the thread bound is " + m.compactionThreads() + "; task-threads=2 and the engine allows " + d.engineMaxThreads());
        check(Rule.COMPACT_2, m.compactionPeakRunning() <= bound,
                m.compactionPeakRunning() + " compactions ran at once; the bound is " + bound);
        check(Rule.COMPACT_2, m.compactionPeakRunning() == bound,
                "at most " + m.compactionPeakRunning() + " compactions ran at once with " + BUCKETS + " buckets of backlog and a bound of " + bound
                        + ": the engine's thread factory did not give the threads");
    }
}
