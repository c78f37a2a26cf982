package io.paimongov.flink;

import io.paimongov.allocator.support.standalone.ManualCancellation;
import io.paimongov.spi.CancellationSignal;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The cancel state of one Flink task as the governed write sees it. Two sources: the task's own
 * flag ({@code StreamTask.isCanceled()}), polled at every check point of the write, so a cancel
 * stops a write that is busy inside a call within one check point; and a manual signal the writer
 * operator fires from {@code close()} when the task ends without finishing (cancelled or failed),
 * which pushes the cancel to the runtime's listener.
 *
 * <p>Thread-safe: the runtime polls from the task thread and compaction threads.
 */
public final class FlinkTaskCancellation implements CancellationSignal {

    public static final String TASK_CANCELLED = "the Flink task was cancelled";

    private final ManualCancellation closed = new ManualCancellation();
    private final BooleanSupplier taskCancelled;

    public FlinkTaskCancellation(BooleanSupplier taskCancelled) {
        this.taskCancelled = taskCancelled;
    }

    /** Fires the signal; the reason is what the write's {@code WriteCancelledException} says. */
    public void cancel(String reason) {
        closed.cancel(reason);
    }

    @Override
    public Optional<String> cancelReason() {
        Optional<String> reason = closed.cancelReason();
        if (reason.isPresent() || !taskCancelled.getAsBoolean()) {
            return reason;
        }
        return Optional.of(TASK_CANCELLED);
    }

    @Override
    public AutoCloseable onCancel(Runnable listener) {
        return closed.onCancel(listener);
    }

    /** Listeners registered with {@link #onCancel} whose handle was not closed yet. */
    int listenerCount() {
        return closed.listenerCount();
    }
}
