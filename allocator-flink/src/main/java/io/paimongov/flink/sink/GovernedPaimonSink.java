package io.paimongov.flink.sink;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkSlot;
import io.paimongov.flink.FlinkTaskCancellation;
import io.paimongov.runtime.config.GovernanceOptions;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
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
 * checkpoints and at the end of a bounded input. The commit user made here is kept in both
 * operators' state, so a job restored from a checkpoint or a savepoint commits under it and never
 * commits a checkpoint twice; a restore that committed checkpoints fails once on purpose ({@link
 * RestoredCommitException}) so the writers restart from the new snapshot. See {@code
 * docs/allocators/flink.md}.
 *
 * <p>Stateless; call it on the thread building the job. It validates {@code options} at once.
 */
public final class GovernedPaimonSink {

    private GovernedPaimonSink() {}

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
                                new GovernedWriterOperator<>(table, options, converter, commitUser));
        written.getTransformation().declareManagedMemoryUseCaseAtOperatorScope(ManagedMemoryUseCase.OPERATOR, weight);
        return written.transform("paimon-gov committer " + table.name(), Types.VOID, new GovernedCommitterOperator(table, commitUser))
                .setParallelism(1)
                .setMaxParallelism(1)
                .sinkTo(new DiscardingSink<>())
                .name("paimon-gov end " + table.name())
                .setParallelism(1);
    }
}
