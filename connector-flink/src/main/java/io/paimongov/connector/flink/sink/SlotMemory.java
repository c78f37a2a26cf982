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
}
