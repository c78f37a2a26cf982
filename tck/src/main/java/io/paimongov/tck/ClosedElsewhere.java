package io.paimongov.tck;

import io.paimongov.runtime.write.GovernedTableWrite;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;

/**
 * METRICS-4's scenario (docs/spi.md METRICS.5): a governed write opened, written and committed on
 * the rule's thread and closed on a thread of the kit's ({@value #CLOSER}), so that the runtime
 * calls {@code MetricsReporter.writeClosed} on a thread that did not open the write; then what the
 * engine's metric system received and the write's final snapshot.
 *
 * <p>Not thread-safe: one rule's thread runs it.
 */
final class ClosedElsewhere {

    /** The thread that closes the write. */
    static final String CLOSER = "tck-metrics4-closer";

    /** The thread that opened the write, what the engine received, the final snapshot, and what the close threw. */
    record Result(String opener, Optional<MetricsSnapshot> received, MetricsSnapshot last, Throwable closeError) {}

    private ClosedElsewhere() {}

    /**
     * Writes {@code workload} in {@code s} with {@code options}, commits, and closes the write on
     * {@link #CLOSER}; a write that fails before its commit fails METRICS-4 with the failure.
     */
    static Result run(TckSubject s, Workload workload, String... options) throws Exception {
        FileStoreTable table = workload.createTable(s.warehouse, "closed_elsewhere");
        ResourceContext context = ResourceContext.open("tck-closed-elsewhere", s.provider, s.options(options), s.environment());
        GovernedTableWrite write = GovernedTableWrite.batch(table, context);
        Throwable failure = null;
        try {
            for (InternalRow row : workload.rowsInOrder()) {
                write.write(row);
            }
            write.prepareCommit().commit();
        } catch (Exception e) {
            failure = e;
        }
        Throwable closeError = closeOnAnotherThread(write);
        if (failure != null) {
            AssertionError error = new AssertionError(Rule.METRICS_4.fail("the write failed before it was committed: " + failure), failure);
            if (closeError != null) {
                error.addSuppressed(closeError);
            }
            throw error;
        }
        return new Result(Thread.currentThread().getName(), s.engine.reportedMetrics(), context.snapshot(), closeError);
    }

    /** Closes {@code write} on {@link #CLOSER} and waits for it; what the close threw, or null. */
    private static Throwable closeOnAnotherThread(GovernedTableWrite write) throws InterruptedException {
        AtomicReference<Throwable> error = new AtomicReference<>();
        Thread closer = new Thread(() -> {
            try {
                write.close();
            } catch (Throwable t) {
                error.set(t);
            }
        }, CLOSER);
        closer.start();
        closer.join();
        return error.get();
    }

    /** The fields in which {@code received} differs from {@code expected}: {@code name: received (expected)}. */
    static List<String> differences(MetricsSnapshot received, MetricsSnapshot expected) {
        List<String> differences = new ArrayList<>();
        for (RecordComponent field : MetricsSnapshot.class.getRecordComponents()) {
            try {
                Object got = field.getAccessor().invoke(received);
                Object want = field.getAccessor().invoke(expected);
                if (!Objects.equals(got, want)) {
                    differences.add(field.getName() + ": " + got + " (the write's " + want + ")");
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read " + field.getName() + " of a metrics snapshot", e);
            }
        }
        return differences;
    }
}
