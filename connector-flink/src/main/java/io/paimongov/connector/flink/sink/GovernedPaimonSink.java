package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkSlot;
import io.paimongov.flink.FlinkTaskCancellation;
import io.paimongov.runtime.config.GovernanceOptions;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.paimon.table.FileStoreTable;

/**
 * Writes a DataStream into a Paimon table through governed writes:
 *
 * <pre>{@code
 * GovernedPaimonSink.write(orders, order -> GenericRow.of(...), table,
 *         Map.of("governance.flink.managed-memory-weight", "100"));
 * }</pre>
 *
 * <p>The elements are routed by (partition, bucket) to a writer operator with the stream's
 * parallelism (one {@link io.paimongov.runtime.write.GovernedTableWrite} per subtask, on the {@code
 * flink} provider); the writer declares operator-scope managed memory with the weight {@code
 * governance.flink.managed-memory-weight} (default {@value
 * FlinkGovernanceProvider#DEFAULT_MANAGED_MEMORY_WEIGHT}) and its budget is its slot share unless
 * {@code governance.memory.budget} is smaller. A committer with parallelism 1 commits on completed
 * checkpoints, and at the end of a bounded input when no checkpoint follows it (else with that
 * checkpoint); configure checkpointing and the runtime mode before calling {@link #write}. The
 * writer, the committer and the sink's end have fixed uids ({@code paimon-gov-writer-}, {@code
 * paimon-gov-committer-}, {@code paimon-gov-end-} followed by the table's full name) and the
 * committer starts its own chain, so a savepoint restores into a job whose writer parallelism
 * changed; one sink per table in a job. The commit user made here is kept in both operators'
 * state, so a job restored from a checkpoint or a savepoint commits under it and never commits a
 * checkpoint twice; a restore that committed checkpoints fails once on purpose ({@link
 * RestoredCommitException}) so the writers restart from the new snapshot. See {@code
 * docs/allocators/flink.md}.
 *
 * <p>Stateless; call it on the thread building the job. It validates {@code options} at once.
 */
public final class GovernedPaimonSink {

    private GovernedPaimonSink() {}

    /**
     * Whether a checkpoint follows the end of input, as the job is configured when the sink is
     * added: streaming mode, checkpointing on and checkpoints after tasks finish (Flink's default).
     */
    private static boolean checkpointAfterEndInput(StreamExecutionEnvironment env) {
        return env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.STREAMING
                && env.getCheckpointConfig().isCheckpointingEnabled()
                && env.getConfiguration().get(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH);
    }

    /**
     * Adds the writer and the committer for {@code table} to {@code input}'s job.
     *
     * @param options {@code governance.*} options for every write; a budget or page size left out
     *     is taken from the slot
     * @throws IllegalArgumentException for a bad option, naming the key
     */
    public static <T> DataStreamSink<Void> write(
            DataStream<T> input, RowConverter<T> converter, FileStoreTable table, Map<String, String> options) {
        int weight = FlinkGovernanceProvider.managedMemoryWeight(GovernanceOptions.of(options).providerOptions());
        String commitUser = UUID.randomUUID().toString();
        SingleOutputStreamOperator<Committable> written =
                input.partitionCustom(new BucketRouting.ToWriter(), new BucketRouting.BucketKey<>(table, converter))
                        .transform(
                                "paimon-gov writer " + table.name(),
                                TypeInformation.of(Committable.class),
                                new GovernedWriterOperator<>(table, options, converter, commitUser))
                        .uid("paimon-gov-writer-" + table.fullName());
        written.getTransformation().declareManagedMemoryUseCaseAtOperatorScope(ManagedMemoryUseCase.OPERATOR, weight);
        return written.transform("paimon-gov committer " + table.name(), Types.VOID,
                        new GovernedCommitterOperator(table, commitUser, checkpointAfterEndInput(input.getExecutionEnvironment())))
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
