package io.paimongov.connector.flink.sink;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.flink.FlinkSlot;
import io.paimongov.flink.FlinkTaskCancellation;
import java.io.Serializable;
import org.apache.paimon.data.InternalRow;

/**
 * Turns a stream element into the Paimon row the governed write takes (a {@code GenericRow}, with
 * its {@code RowKind} for deletes). Elements travel between Flink tasks in their own type, so a
 * type Flink serializes itself (a POJO, a tuple, {@code Row}) is the best input.
 *
 * <p>Shipped to the task managers with the job (hence {@link Serializable}); called on the task
 * thread, once to route an element to its bucket's writer and once in the writer. May throw: the
 * task then fails.
 */
@FunctionalInterface
public interface RowConverter<T> extends Serializable {

    InternalRow toRow(T element);
}
