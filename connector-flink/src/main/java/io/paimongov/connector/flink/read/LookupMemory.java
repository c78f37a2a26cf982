package io.paimongov.connector.flink.read;

import io.paimongov.flink.FlinkMetricGroupReporter;
import io.paimongov.heap.HeapGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.runtime.write.ResourceContext;
import io.paimongov.spi.CancellationSignal;
import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.MetricsReporter;
import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;
import org.apache.flink.table.functions.FunctionContext;

/**
 * What a lookup function takes from its task manager: a budget on the JVM heap, the task manager's
 * temp directories ({@code io.tmp.dirs}) as spill roots, a cancel and the function's metric group,
 * opened as one {@link ResourceContext} on the {@code heap} provider.
 *
 * <p>Why the heap and not the slot's managed memory, as the governed writers and read operators
 * take: Flink lets a lookup function declare no managed memory, and a slot's managed memory belongs
 * whole to the operators that declared it (a batch job's sorts and hash aggregates, RocksDB state):
 * what a lookup took of it they would miss and fail for. Paimon's own lookup keeps its cache on the
 * heap too ({@code lookup.cache-max-memory-size}); here everything the lookup holds is counted and
 * bounded by its budget.
 *
 * <p>Stateless; called on the task thread in {@code open()}.
 */
final class LookupMemory {

    private static final Field RUNTIME_CONTEXT = runtimeContextField();

    private LookupMemory() {}

    /**
     * Opens the context of lookup function {@code name}: its budget {@code governance.memory.budget}
     * of {@code options}, else {@code defaultBudget}.
     *
     * @throws IllegalArgumentException when the budget is larger than the heap can give (the
     *     maximum heap less the live heap), naming {@code governance.memory.budget}
     * @throws IllegalStateException when this Flink keeps a function's runtime context elsewhere
     */
    static ResourceContext open(FunctionContext function, String name, Map<String, String> options, long defaultBudget,
            CancellationSignal cancellation) {
        Map<String, String> values = new HashMap<>(options);
        values.putIfAbsent(GovernanceOptions.MEMORY_BUDGET, Long.toString(defaultBudget));
        values.putIfAbsent(GovernanceOptions.SPILL_DIRS, String.join(",", tmpDirectories(function)));
        MetricGroup metrics = function.getMetricGroup();
        EngineEnvironment engine = EngineEnvironment.builder()
                .with(CancellationSignal.class, cancellation)
                .with(MetricsReporter.class, FlinkMetricGroupReporter.of(metrics))
                .build();
        return ResourceContext.open(name, new HeapGovernanceProvider(), GovernanceOptions.of(values), engine);
    }

    /** The task manager's {@code io.tmp.dirs}, which Flink gives a function only through its private runtime context. */
    private static String[] tmpDirectories(FunctionContext function) {
        if (RUNTIME_CONTEXT == null) {
            throw new IllegalStateException("this Flink's FunctionContext keeps its runtime context elsewhere: connector-flink"
                    + " is built for Flink 2.2");
        }
        try {
            Object runtime = RUNTIME_CONTEXT.get(function);
            if (!(runtime instanceof StreamingRuntimeContext streaming)) {
                throw new IllegalStateException("a governed lookup runs in a Flink streaming task; its runtime context is "
                        + (runtime == null ? "missing" : runtime.getClass().getName()));
            }
            return streaming.getTaskManagerRuntimeInfo().getTmpDirectories();
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read the runtime context of a lookup function", e);
        }
    }

    private static Field runtimeContextField() {
        try {
            Field f = FunctionContext.class.getDeclaredField("context");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
