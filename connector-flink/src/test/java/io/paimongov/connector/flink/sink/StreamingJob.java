package io.paimongov.connector.flink.sink;

import io.paimongov.fixtures.TestTables;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * The unbounded test job of the streaming sink tests and the faults it injects.
 *
 * <p>Source: the indices 0, 1, 2, ... of Flink's checkpointed {@link DataGeneratorSource}, {@link
 * #PER_CHECKPOINT} per completed checkpoint (its gated rate limiter): the data advances with
 * checkpoints, not with the clock, so an injected fault always finds data before and after it. The
 * job never ends; index {@code i < n} becomes the change {@link #change(long, boolean)}, a function
 * of {@code i} alone, so the test's model is the fold of {@code change(0..n-1)} whatever the job
 * replayed. Source, fault injector and change mapper run with parallelism 1 (each key's changes
 * reach its writer in input order), the writers with the environment's parallelism.
 *
 * <p>Faults ({@link Faults}) are static, as the MiniCluster runs in the test's JVM: a task failure
 * from a chosen index on (once the sink committed a checkpoint) or at the next index, and a task
 * manager terminated at a chosen index. Each
 * fires once. Not thread-safe across tests: one job at a time.
 */
final class StreamingJob {

    /** Indices the source lets through per completed checkpoint. */
    static final int PER_CHECKPOINT = 2_000;

    static final long CHECKPOINT_MILLIS = 100;

    private static final int KEYS = 3_000;

    private StreamingJob() {}

    /** The change of index {@code i}: a key of 2 x {@value #KEYS}, the value "v" + i; 1 in 10 a delete when {@code deletes}. */
    static Change change(long i, boolean deletes) {
        Random random = new Random(i);
        int k = random.nextInt(KEYS);
        boolean delete = deletes && random.nextInt(10) == 0;
        return new Change((int) (i % 2), k, delete ? null : "v" + i, delete);
    }

    /** The primary-key model: the last change of every key among {@code change(0..n-1)}, deletes included. */
    static Map<List<Integer>, String> lastChangePerKey(long n) {
        Map<List<Integer>, String> model = TestTables.emptyModel();
        for (long i = 0; i < n; i++) {
            Change c = change(i, true);
            InternalRow row = Change.toRow(c);
            TestTables.apply(model, row);
        }
        return model;
    }

    /**
     * An environment for the job: checkpoints every {@value #CHECKPOINT_MILLIS} ms, streaming mode,
     * writers of parallelism {@code writers}, fixed-delay restarts with 10 ms delay and {@code 2 x
     * failures + 2} attempts (every failure may cost two: the second is the sink's restore-and-fail),
     * restored from {@code savepoint} when not null.
     */
    static StreamExecutionEnvironment environment(int writers, int failures, String savepoint) {
        Configuration config = new Configuration();
        config.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2 * failures + 2);
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
        if (savepoint != null) {
            config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.enableCheckpointing(CHECKPOINT_MILLIS);
        env.setParallelism(writers);
        return env;
    }

    /** Adds the job writing {@code change(0..n-1)} (deletes only when {@code deletes}) into {@code table}. */
    static void build(StreamExecutionEnvironment env, FileStoreTable table, long n, boolean deletes, Map<String, String> options) {
        DataGeneratorSource<Long> indices =
                new DataGeneratorSource<>(i -> i, Long.MAX_VALUE, RateLimiterStrategy.perCheckpoint(PER_CHECKPOINT), Types.LONG);
        GovernedPaimonSink.write(
                env.fromSource(indices, WatermarkStrategy.noWatermarks(), "indices")
                        .setParallelism(1)
                        .map(new Inject(n))
                        .setParallelism(1)
                        .filter(i -> i < n)
                        .setParallelism(1)
                        .map(i -> change(i, deletes))
                        .returns(TypeInformation.of(Change.class))
                        .setParallelism(1),
                Change::toRow,
                table,
                options);
    }

    /** What the injector saw and the faults it is told to inject; reset before each job. */
    static final class Faults {
        /**
         * Fail the task (once) at the first index from this one on that passes after {@link
         * #table} committed the last checkpoint the injector was told of; -1 for none. The restore
         * then finds that checkpoint's messages in the committer's state, already committed.
         */
        static final AtomicLong FAIL_AT = new AtomicLong(-1);
        static volatile FileStoreTable table;
        /** The largest checkpoint id the injector was told of as completed. */
        static final AtomicLong LAST_NOTIFIED = new AtomicLong(-1);
        /** Fail the task at the next index (once). */
        static final AtomicBoolean FAIL_NEXT = new AtomicBoolean();
        /** Terminate the task manager {@link #killTaskManager} when this index passes (once); -1 for none. */
        static final AtomicLong KILL_AT = new AtomicLong(-1);
        static volatile MiniCluster cluster;
        static volatile int killTaskManager;
        /** Completes with the termination of the killed task manager. */
        static volatile CompletableFuture<CompletableFuture<Void>> killed = new CompletableFuture<>();
        static final AtomicInteger INJECTED = new AtomicInteger();
        /** The attempt number of the task the last injected failure or kill hit. */
        static volatile int injectedAttempt = -1;
        /** The largest index below n the injector passed on. */
        static final AtomicLong MAX_SEEN = new AtomicLong(-1);
        /** The largest attempt number in which the injector was told of a completed checkpoint. */
        static final AtomicInteger CHECKPOINTED_ATTEMPT = new AtomicInteger(-1);
        /** Completed-checkpoint notifications the injector received, over all attempts. */
        static final AtomicInteger NOTIFICATIONS = new AtomicInteger();

        private Faults() {}

        static void reset() {
            FAIL_AT.set(-1);
            FAIL_NEXT.set(false);
            KILL_AT.set(-1);
            table = null;
            LAST_NOTIFIED.set(-1);
            cluster = null;
            killed = new CompletableFuture<>();
            INJECTED.set(0);
            injectedAttempt = -1;
            MAX_SEEN.set(-1);
            CHECKPOINTED_ATTEMPT.set(-1);
            NOTIFICATIONS.set(0);
        }
    }

    /** Passes indices on and injects the {@link Faults}; records progress and checkpoint notifications. */
    static final class Inject extends RichMapFunction<Long, Long> implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final long n;

        Inject(long n) {
            this.n = n;
        }

        @Override
        public Long map(Long i) {
            int attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
            if (i < n) {
                Faults.MAX_SEEN.accumulateAndGet(i, Math::max);
            }
            long failAt = Faults.FAIL_AT.get();
            if ((failAt >= 0 && i >= failAt && lastCheckpointCommitted() && Faults.FAIL_AT.compareAndSet(failAt, -1))
                    || Faults.FAIL_NEXT.compareAndSet(true, false)) {
                Faults.injectedAttempt = attempt;
                Faults.INJECTED.incrementAndGet();
                throw new IllegalStateException("injected: the task failed at index " + i);
            }
            if (Faults.KILL_AT.compareAndSet(i, -1)) {
                Faults.injectedAttempt = attempt;
                Faults.INJECTED.incrementAndGet();
                Faults.killed.complete(Faults.cluster.terminateTaskManager(Faults.killTaskManager));
            }
            return i;
        }

        private static boolean lastCheckpointCommitted() {
            long notified = Faults.LAST_NOTIFIED.get();
            Snapshot latest = notified < 0 ? null : Faults.table.snapshotManager().latestSnapshot();
            return latest != null && latest.commitIdentifier() >= notified;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Faults.LAST_NOTIFIED.accumulateAndGet(checkpointId, Math::max);
            Faults.CHECKPOINTED_ATTEMPT.accumulateAndGet(getRuntimeContext().getTaskInfo().getAttemptNumber(), Math::max);
            Faults.NOTIFICATIONS.incrementAndGet();
        }
    }
}
