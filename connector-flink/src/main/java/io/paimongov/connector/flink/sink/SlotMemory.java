package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkSlot;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.config.MemorySharing;
import io.paimongov.runtime.memory.SharedMemory;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.MemoryManager;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;

/**
 * What a governed operator (writer, assigner or reader) takes from its slot: its share of the slot's managed
 * memory, from the fraction Flink computed for the operator's declared use case, the task manager's
 * temp directories ({@code io.tmp.dirs}) as spill roots, the task's cancel flag and the operator's
 * metric group, opened as one {@link ResourceContext} on the {@code flink} provider; with {@code
 * governance.memory.sharing} = {@code fair} (the default) it joins its slot's shared memory ({@link
 * SlotMemories}): guaranteed its share, it may borrow what the slot's other governed operators do
 * not use (docs/memory-sharing.md). Flink gives an operator that declared nothing the fraction 0,
 * and {@link MemoryManager#computeMemorySize(double)} then throws a message that does not say what
 * is missing; this says it.
 *
 * <p>Stateless; called on the task thread in {@code open()}.
 */
public final class SlotMemory {

    private SlotMemory() {}

    /**
     * Opens the resource context of {@code operator}, named {@code name}, with the job's {@code
     * options}; without a budget the context may use the operator's whole share, in the slot's pages.
     *
     * @throws IllegalStateException when the operator declared no managed memory
     */
    public static ResourceContext open(
            AbstractStreamOperator<?> operator, String name, Map<String, String> options, CancellationSignal cancellation) {
        Environment task = operator.getContainingTask().getEnvironment();
        MemoryManager manager = task.getMemoryManager();
        double fraction =
                operator.getOperatorConfig()
                        .getManagedMemoryFractionOperatorUseCaseOfSlot(
                                ManagedMemoryUseCase.OPERATOR,
                                task.getJobConfiguration(),
                                task.getTaskManagerInfo().getConfiguration(),
                                task.getUserCodeClassLoader().asClassLoader());
        long share = share(manager, fraction, operator.getOperatorConfig().getOperatorName());
        Map<String, String> values = new HashMap<>(options);
        values.putIfAbsent(GovernanceOptions.PAGE_SIZE, Integer.toString(manager.getPageSize()));
        values.putIfAbsent(GovernanceOptions.MEMORY_BUDGET, Long.toString(share));
        GovernanceOptions governance = GovernanceOptions.of(values);
        EngineEnvironment.Builder engine = engine(task, operator.getMetricGroup(), cancellation);
        if (governance.memorySharing() == MemorySharing.FAIR) {
            // Guaranteed its share, it may borrow up to the slot's memory from the other governed operators.
            checkBudget(governance.budgetBytes(), share);
            engine.with(FlinkSlot.class, FlinkSlot.of(manager.getMemorySize(), spillDirs(task)))
                    .with(SharedMemory.class, SlotMemories.of(manager));
        } else {
            engine.with(FlinkSlot.class, FlinkSlot.of(share, spillDirs(task)));
        }
        return ResourceContext.open(name, new FlinkGovernanceProvider(), governance, engine.build());
    }

    private static EngineEnvironment.Builder engine(Environment task, MetricGroup metrics, CancellationSignal cancellation) {
        return EngineEnvironment.builder()
                .with(MemoryManager.class, task.getMemoryManager())
                .with(CancellationSignal.class, cancellation)
                .with(MetricGroup.class, metrics);
    }

    /**
     * {@code io.tmp.dirs} themselves, not the IOManager's spilling dirs under them: those are
     * {@code <io.tmp.dirs>/flink-io-<uuid>}, new in every task manager process, so the scope of a
     * killed task manager would sit where no later write sweeps (SPILL.1, SPILL.7).
     */
    private static String[] spillDirs(Environment task) {
        return task.getTaskManagerInfo().getTmpDirectories();
    }

    /**
     * The check the {@code flink} provider makes of a write opened with its share (PROV.7), for a
     * write that opens with the whole slot as its ceiling because it borrows in the slot's shared
     * memory: its budget, the share it is guaranteed, must fit in the operator's share.
     *
     * @throws IllegalArgumentException naming {@code governance.memory.budget}, the budget and the share
     */
    static void checkBudget(long budgetBytes, long shareBytes) {
        if (budgetBytes > shareBytes) {
            throw new IllegalArgumentException("'governance.memory.budget' = " + budgetBytes + " bytes is larger than the"
                    + " managed memory Flink gives this write (its operator's share of the slot): " + shareBytes + " bytes;"
                    + " lower 'governance.memory.budget' or give the task managers more managed memory"
                    + " (taskmanager.memory.managed.size) or the writer a larger share ("
                    + FlinkGovernanceProvider.MANAGED_MEMORY_WEIGHT + ")");
        }
    }

    /**
     * @throws IllegalStateException when the fraction is 0: the operator's managed memory was not
     *     declared, or the task managers have none
     */
    static long share(MemoryManager manager, double fraction, String operator) {
        if (!(fraction > 0)) {
            throw new IllegalStateException(
                    "operator '" + operator + "' has no managed memory (its slot fraction is " + fraction + "): declare it with"
                            + " transformation.declareManagedMemoryUseCaseAtOperatorScope(ManagedMemoryUseCase.OPERATOR, weight)"
                            + " (GovernedPaimonSink.write does this) and give the task managers managed memory"
                            + " (taskmanager.memory.managed.size or taskmanager.memory.managed.fraction)");
        }
        return manager.computeMemorySize(fraction);
    }
}
