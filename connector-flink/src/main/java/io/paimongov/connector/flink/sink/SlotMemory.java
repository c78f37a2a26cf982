package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkSlot;
import io.paimongov.flink.FlinkTaskCancellation;
import org.apache.flink.runtime.memory.MemoryManager;

/**
 * The writer operator's share of its slot's managed memory, from the fraction Flink computed for the
 * operator's declared use case. Flink gives an operator that declared nothing the fraction 0, and
 * {@link MemoryManager#computeMemorySize(double)} then throws a message that does not say what is
 * missing; this says it.
 *
 * <p>Stateless; thread-safe.
 */
final class SlotMemory {

    private SlotMemory() {}

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
