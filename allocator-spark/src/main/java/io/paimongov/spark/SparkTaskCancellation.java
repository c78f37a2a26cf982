package io.paimongov.spark;

import io.paimongov.spi.CancellationSignal;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.TaskContext;

/**
 * A Spark task's cancel state as a {@link CancellationSignal}. Polled: the task is cancelled once
 * Spark marks it interrupted (a killed task, a cancelled job or stage, a speculative attempt that
 * lost), with Spark's kill reason. Pushed: {@link #fire} runs the listeners when the task fails or
 * ends with the write still open ({@link TaskLifecycle}); Spark has no listener for a kill itself,
 * so a kill is seen at the runtime's next check point (every row) and by the failure listener.
 *
 * <p><b>Thread-safety:</b> thread-safe; listeners run once, on the thread that fires first (Spark's
 * task thread for its listeners). Never blocks, never throws.
 */
final class SparkTaskCancellation implements CancellationSignal {

    private final TaskContext task;
    private final AtomicReference<String> pushed = new AtomicReference<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    SparkTaskCancellation(TaskContext task) {
        this.task = task;
    }

    @Override
    public Optional<String> cancelReason() {
        String reason = pushed.get();
        if (reason != null) {
            return Optional.of(reason);
        }
        if (!task.isInterrupted()) {
            return Optional.empty();
        }
        return Optional.of("spark task " + task.taskAttemptId() + " killed: " + killReason());
    }

    private String killReason() {
        return task.getKillReason().isDefined() ? task.getKillReason().get() : "interrupted";
    }

    /** A listener registered after the cancel runs at once and is not kept, so it runs once. */
    @Override
    public AutoCloseable onCancel(Runnable listener) {
        if (cancelReason().isPresent()) {
            listener.run();
            return () -> {};
        }
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /**
     * Pushes a cancel: keeps {@code reason} unless one was pushed already, then runs every listener
     * not yet run, each once (a listener is removed before it runs).
     */
    void fire(String reason) {
        pushed.compareAndSet(null, reason);
        for (Runnable listener : listeners) {
            if (listeners.remove(listener)) {
                listener.run();
            }
        }
    }
}
