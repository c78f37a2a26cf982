package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkSlot;
import io.paimongov.flink.FlinkTaskCancellation;
import io.paimongov.runtime.config.GovernanceOptions;
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
 * What a governed operator (writer or assigner) takes from its slot: its share of the slot's managed
 * memory, from the fraction Flink computed for the operator's declared use case, the task manager's
 * spilling directories, the task's cancel flag and the operator's metric group, opened as one
 * {@link ResourceContext} on the {@code flink} provider. Flink gives an operator that declared
 * nothing the fraction 0, and {@link MemoryManager#computeMemorySize(double)} then throws a message
 * that does not say what is missing; this says it.
 *
 * <p>Stateless; called on the task thread in {@code open()}.
 */
final class SlotMemory {

    private SlotMemory() {}

    /**
     * Opens the resource context of {@code operator}, named {@code name}, with the job's {@code
     * options}; without a budget the context may use the operator's whole share, in the slot's pages.
     *
     * @throws IllegalStateException when the operator declared no managed memory
     */
    static ResourceContext open(
            AbstractStreamOperator<?> operator, String name, Map<String, String> options, FlinkTaskCancellation cancellation) {
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
        EngineEnvironment engine =
                EngineEnvironment.builder()
                        .with(MemoryManager.class, manager)
                        .with(FlinkSlot.class, FlinkSlot.of(share, task.getIOManager().getSpillingDirectoriesPaths()))
                        .with(CancellationSignal.class, cancellation)
                        .with(MetricGroup.class, operator.getMetricGroup())
                        .build();
        Map<String, String> values = new HashMap<>(options);
        values.putIfAbsent(GovernanceOptions.MEMORY_BUDGET, Long.toString(share));
        values.putIfAbsent(GovernanceOptions.PAGE_SIZE, Integer.toString(manager.getPageSize()));
        return ResourceContext.open(name, new FlinkGovernanceProvider(), GovernanceOptions.of(values), engine);
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
