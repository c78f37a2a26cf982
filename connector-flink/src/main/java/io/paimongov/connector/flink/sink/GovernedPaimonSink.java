package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.WriteChannels;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.utils.InternalTypeInfo;
import org.apache.paimon.table.FileStoreTable;

/**
 * Writes a DataStream into a Paimon table through governed writes:
 *
 * <pre>{@code
 * GovernedPaimonSink.write(orders, order -> GenericRow.of(...), table,
 *         Map.of("governance.flink.managed-memory-weight", "100"));
 * GovernedPaimonSink.into(table).options(governance).overwrite(Map.of("dt", "2026-12-06")).write(orders, converter);
 * }</pre>
 *
 * <p>The elements are routed to a writer operator as Paimon's own sinks route them ({@link
 * WriteChannels}: by (partition, bucket) for fixed buckets, by key for the postpone bucket, not at
 * all for bucket-unaware append tables; dynamic buckets and cross-partition updates go through an
 * assigner operator first, {@link GovernedAssignerOperator}, then by (partition, bucket)), one
 * {@link io.paimongov.runtime.write.GovernedTableWrite} per subtask on the {@code flink} provider,
 * with the job's default parallelism unless {@link Builder#parallelism} says otherwise. The assigner and
 * the writer each declare managed memory with the same weight.
 * The writer declares operator-scope managed memory with the weight {@code
 * governance.flink.managed-memory-weight} (default {@value
 * FlinkGovernanceProvider#DEFAULT_MANAGED_MEMORY_WEIGHT}) and its budget is its slot share unless
 * {@code governance.memory.budget} is smaller. A committer with parallelism 1 commits on completed
 * checkpoints, and at the end of a bounded input when no checkpoint follows it (else with that
 * checkpoint); configure checkpointing and the runtime mode before calling {@link Builder#write}.
 * The assigner, the writer, the committer and the sink's end have fixed uids ({@code
 * paimon-gov-assigner-}, {@code paimon-gov-writer-}, {@code paimon-gov-committer-}, {@code
 * paimon-gov-end-} followed by the table's full name), the assigner runs at every parallelism
 * (one writer too) and the committer starts its own chain, so a savepoint restores into a job
 * whose writer parallelism changed; one sink per table in a job. The commit user made here is kept in both operators'
 * state, so a job restored from a checkpoint or a savepoint commits under it and never commits a
 * checkpoint twice; a restore that committed checkpoints fails once on purpose ({@link
 * RestoredCommitException}) so the writers restart from the new snapshot. See {@code
 * docs/flink.md}.
 *
 * <p>Stateless; call it on the thread building the job. It validates the options at once.
 */
public final class GovernedPaimonSink {

    private GovernedPaimonSink() {}

    /** A sink for {@code table}, to configure and {@link Builder#write}. */
    public static Builder into(FileStoreTable table) {
        return new Builder(table);
    }

    /**
     * Adds the writer and the committer for {@code table} to {@code input}'s job: {@code into(table)
     * .options(options).write(input, converter)}.
     *
     * @param options {@code governance.*} options for every write; a budget or page size left out
     *     is taken from the slot
     * @throws IllegalArgumentException for a bad option, naming the key
     */
    public static <T> DataStreamSink<Void> write(
            DataStream<T> input, RowConverter<T> converter, FileStoreTable table, Map<String, String> options) {
        return into(table).options(options).write(input, converter);
    }

    /**
     * What one sink writes and how. Not thread-safe; used on the thread building the job.
     */
    public static final class Builder {
        private final FileStoreTable table;
        private Map<String, String> options = Map.of();
        private Map<String, String> overwrite;
        private Integer parallelism;

        private Builder(FileStoreTable table) {
            this.table = table;
        }

        /** {@code governance.*} options for every write of the sink. */
        public Builder options(Map<String, String> governance) {
            this.options = new HashMap<>(governance);
            return this;
        }

        /**
         * Makes the sink an {@code INSERT OVERWRITE}: the partitions given ({@code partition} key to
         * value; empty: every partition the rows touch when the table's {@code
         * dynamic-partition-overwrite} is on, as it is by default, else the whole table) are replaced
         * by the rows written, in one commit at the end of the input, also when there are no rows.
         * Bounded input only.
         */
        public Builder overwrite(Map<String, String> partition) {
            this.overwrite = new HashMap<>(partition);
            return this;
        }

        /** The writers' parallelism; the job's default parallelism when not set. */
        public Builder parallelism(int writers) {
            if (writers < 1) {
                throw new IllegalArgumentException("a sink needs at least one writer; got parallelism " + writers);
            }
            this.parallelism = writers;
            return this;
        }

        /** The writers; with {@code materialized} ({@link UpsertMaterializer}) they fail when they open. */
        private <E> SingleOutputStreamOperator<Committable> writer(
                DataStream<E> routed, GovernedWriterOperator.Feeder<E> feeder, String commitUser, int writers,
                boolean materialized) {
            GovernedWriterOperator<E> operator = new GovernedWriterOperator<>(table, options, feeder, commitUser, overwrite);
            if (materialized) {
                operator.refuseAtOpen(UpsertMaterializer.refusal(table.fullName()));
            }
            return routed.transform(
                            "paimon-gov writer " + table.name(),
                            TypeInformation.of(Committable.class),
                            operator)
                    .uid("paimon-gov-writer-" + table.fullName())
                    .setParallelism(writers);
        }

        /**
         * Adds the writer and the committer to {@code input}'s job.
         *
         * <p>An input that goes through Flink SQL's sink upsert materializer makes the writers fail
         * when they open, naming {@code table.exec.sink.upsert-materialize}, as Paimon's own sink
         * does ({@link UpsertMaterializer}).
         *
         * @throws IllegalArgumentException for a bad option, naming the key
         */
        public <T> DataStreamSink<Void> write(DataStream<T> input, RowConverter<T> converter) {
            boolean materialized = UpsertMaterializer.upstreamOf(input);
            int weight = FlinkGovernanceProvider.managedMemoryWeight(GovernanceOptions.of(options).providerOptions());
            StreamExecutionEnvironment env = input.getExecutionEnvironment();
            if (overwrite != null && env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.STREAMING
                    && env.getCheckpointConfig().isCheckpointingEnabled()) {
                throw new UnsupportedOperationException("an overwrite of '" + table.fullName() + "' commits once, at the end of"
                        + " its input: run it in batch mode ('execution.runtime-mode' = 'batch'), not as a checkpointed"
                        + " streaming job");
            }
            int writers = GovernedPaimonSink.writers(this, env, input);
            // The assigner stage runs at every parallelism, so that a savepoint restores into any.
            WriteChannels channels = WriteChannels.of(table, writers).withAssignerStage();
            String commitUser = UUID.randomUUID().toString();
            SingleOutputStreamOperator<Committable> written;
            if (channels.assignerStage()) {
                SingleOutputStreamOperator<Tuple2<InternalRow, Integer>> assigned =
                        input.partitionCustom(new ChannelRouting.ToWriter(), new ChannelRouting.ChannelKey<>(channels, converter))
                                .transform(
                                        "paimon-gov assigner " + table.name(),
                                        new TupleTypeInfo<>(InternalTypeInfo.fromRowType(table.rowType()), Types.INT),
                                        new GovernedAssignerOperator<>(table, options, converter, commitUser, overwrite != null))
                                .uid("paimon-gov-assigner-" + table.fullName())
                                .setParallelism(writers);
                assigned.getTransformation().declareManagedMemoryUseCaseAtOperatorScope(ManagedMemoryUseCase.OPERATOR, weight);
                written = writer(
                        assigned.partitionCustom(new ChannelRouting.ToWriter(), new ChannelRouting.AssignedKey(table, channels)),
                        GovernedWriterOperator.Feeder.assigned(), commitUser, writers, materialized);
            } else {
                DataStream<T> routed = channels.keyed()
                        ? input.partitionCustom(new ChannelRouting.ToWriter(), new ChannelRouting.ChannelKey<>(channels, converter))
                        : input;
                written = writer(routed, GovernedWriterOperator.Feeder.rows(converter), commitUser, writers, materialized);
            }
            written.getTransformation().declareManagedMemoryUseCaseAtOperatorScope(ManagedMemoryUseCase.OPERATOR, weight);
            return written.transform("paimon-gov committer " + table.name(), Types.VOID,
                            new GovernedCommitterOperator(
                                    table, commitUser, checkpointAfterEndInput(env), overwrite))
                    .uid("paimon-gov-committer-" + table.fullName())
                    // Never chained to a writer of parallelism 1: the chain would take the writer's
                    // max parallelism, and a savepoint of it could not be restored with more writers.
                    .startNewChain()
                    .setParallelism(1)
                    .setMaxParallelism(1)
                    .sinkTo(new DiscardingSink<>())
                    .name("paimon-gov end " + table.name())
                    .uid("paimon-gov-end-" + table.fullName())
                    .setParallelism(1);
        }
    }

    /**
     * {@link Builder#parallelism}, else the job's default parallelism, else the input's: the
     * routing in front of the writers needs the count when the job is built.
     *
     * @throws IllegalArgumentException when none is set, naming where to set it
     */
    private static int writers(Builder builder, StreamExecutionEnvironment env, DataStream<?> input) {
        if (builder.parallelism != null) {
            return builder.parallelism;
        }
        int writers = env.getParallelism() > 0 ? env.getParallelism() : input.getParallelism();
        if (writers < 1) {
            throw new IllegalArgumentException("the governed sink of '" + builder.table.fullName() + "' needs its writer"
                    + " count when the job is built: set 'parallelism.default' (or 'sink.parallelism' in SQL,"
                    + " GovernedPaimonSink.Builder.parallelism)");
        }
        return writers;
    }

    /**
     * Whether a checkpoint follows the end of input, as the job is configured when the sink is
     * added: streaming mode, checkpointing on and checkpoints after tasks finish (Flink's default).
     */
    private static boolean checkpointAfterEndInput(StreamExecutionEnvironment env) {
        return env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.STREAMING
                && env.getCheckpointConfig().isCheckpointingEnabled()
                && env.getConfiguration().get(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH);
    }
}
