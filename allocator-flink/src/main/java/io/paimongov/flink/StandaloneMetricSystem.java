package io.paimongov.flink;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.metrics.MetricRegistryConfiguration;
import org.apache.flink.runtime.metrics.MetricRegistryImpl;
import org.apache.flink.runtime.metrics.ReporterSetup;
import org.apache.flink.runtime.metrics.groups.TaskManagerMetricGroup;

/**
 * Flink's own metric system for the standalone engine: a {@link MetricRegistryImpl} with one
 * reporter, a task manager's metric group and under it the writer's group that the provider's
 * {@link FlinkMetricGroupReporter} registers its gauges in, as in a job. {@link #lastSnapshot()}
 * reads what the reporter was told back from Flink: every gauge of group {@value
 * FlinkMetricGroupReporter#GROUP} and of its {@code paimon} subgroup, rebuilt into a snapshot.
 *
 * <p>Thread-safe: Flink calls the reporter from the registering thread; the gauges are read on the
 * caller's. The provider registers the gauges of a group once and points them at the write opened
 * last ({@link FlinkMetricGroupReporter}), so what is read here is that write's.
 */
final class StandaloneMetricSystem implements AutoCloseable {

    private final Received received = new Received();
    private final MetricRegistryImpl registry;
    private final TaskManagerMetricGroup taskManager;
    private final MetricGroup writer;

    StandaloneMetricSystem(Configuration flinkConfig) {
        registry = new MetricRegistryImpl(
                MetricRegistryConfiguration.fromConfiguration(flinkConfig, Long.MAX_VALUE), List.of(reporterSetup(received)));
        taskManager = TaskManagerMetricGroup.createTaskManagerMetricGroup(registry, "localhost", ResourceID.generate());
        writer = taskManager.addGroup("paimon-gov-writer");
    }

    /**
     * Flink's setup of {@code reporter} with no filter. Built reflectively because the filter's type
     * differs between Flink lines ({@code MetricFilter} in 1.20, {@code ReporterFilter<Metric>} in 2.x),
     * while both take it fourth in the same constructor and name their no-op filter {@code
     * NO_OP_FILTER}; so one jar serves both (docs/compatibility.md).
     */
    private static ReporterSetup reporterSetup(MetricReporter reporter) {
        for (Constructor<?> constructor : ReporterSetup.class.getConstructors()) {
            Class<?>[] parameters = constructor.getParameterTypes();
            if (parameters.length == 5 && parameters[2] == MetricReporter.class && parameters[4] == Map.class) {
                try {
                    Object noFilter = parameters[3].getField("NO_OP_FILTER").get(null);
                    return (ReporterSetup) constructor.newInstance("paimon-gov-standalone", new MetricConfig(), reporter, noFilter, Map.of());
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("cannot set up a metric reporter on this Flink: " + e, e);
                }
            }
        }
        throw new IllegalStateException("this Flink's ReporterSetup has no (name, config, reporter, filter, variables) constructor");
    }

    /** The group the provider reports into, as the writer operator's group is in a job. */
    MetricGroup writerGroup() {
        return writer;
    }

    /** The snapshot the gauges Flink received now read, or empty when no write registered them. */
    Optional<MetricsSnapshot> lastSnapshot() {
        Map<String, Gauge<?>> fields = Map.copyOf(received.fields);
        if (fields.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Object> paimon = new HashMap<>();
        // A key the last write did not report reads null: it is not in that write's snapshot.
        received.paimon.forEach((key, gauge) -> {
            Object value = gauge.getValue();
            if (value != null) {
                paimon.put(key, value);
            }
        });
        RecordComponent[] components = MetricsSnapshot.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            if (types[i] == Map.class) {
                values[i] = paimon;
                continue;
            }
            Gauge<?> gauge = fields.get(components[i].getName());
            if (gauge == null) {
                return Optional.empty();
            }
            Number value = (Number) gauge.getValue();
            values[i] = types[i] == double.class ? (Object) value.doubleValue() : (Object) value.longValue();
        }
        try {
            Constructor<MetricsSnapshot> constructor = MetricsSnapshot.class.getDeclaredConstructor(types);
            return Optional.of(constructor.newInstance(values));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot rebuild a metrics snapshot from Flink's gauges", e);
        }
    }

    /** Metrics registered with Flink's registry and not removed: what writes left in the metric system. */
    int registeredMetrics() {
        return received.registered.get();
    }

    @Override
    public void close() {
        taskManager.close();
        registry.closeAsync();
    }

    /** The reporter: keeps the gauges of the governance group and of its paimon subgroup by name. */
    private static final class Received implements MetricReporter {
        final Map<String, Gauge<?>> fields = new ConcurrentHashMap<>();
        final Map<String, Gauge<?>> paimon = new ConcurrentHashMap<>();
        final AtomicInteger registered = new AtomicInteger();

        @Override
        public void open(MetricConfig config) {}

        @Override
        public void close() {}

        @Override
        public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
            registered.incrementAndGet();
            if (!(metric instanceof Gauge<?> gauge)) {
                return;
            }
            String[] scope = group.getScopeComponents();
            String last = scope[scope.length - 1];
            if (last.equals(FlinkMetricGroupReporter.GROUP)) {
                fields.putIfAbsent(name, gauge);
            } else if (last.equals(FlinkMetricGroupReporter.PAIMON_GROUP) && scope.length > 1
                    && scope[scope.length - 2].equals(FlinkMetricGroupReporter.GROUP)) {
                paimon.putIfAbsent(name, gauge);
            }
        }

        @Override
        public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
            registered.decrementAndGet();
        }
    }
}
