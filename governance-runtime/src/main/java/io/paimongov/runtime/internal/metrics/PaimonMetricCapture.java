package io.paimongov.runtime.internal.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.paimon.metrics.Counter;
import org.apache.paimon.metrics.Gauge;
import org.apache.paimon.metrics.Metric;
import org.apache.paimon.metrics.MetricGroup;
import org.apache.paimon.metrics.MetricGroupImpl;
import org.apache.paimon.metrics.MetricRegistry;

/**
 * Captures the metric groups Paimon registers on a write ({@code writerBuffer}, {@code
 * compaction}) so they can be read into {@link io.paimongov.spi.metrics.MetricsSnapshot#paimon()}.
 *
 * <p>Paimon's compaction gauges iterate maps the writer mutates, so {@link #read()} must run while
 * no write call is under way: the runtime calls it inside the write's call lock, at each {@code
 * prepareCommit} and when the write is released (before Paimon's write closes), and keeps the
 * result. <b>Thread-safety:</b> registration is thread-safe; {@link #read()} is not safe to call
 * concurrently with writes.
 */
public final class PaimonMetricCapture implements MetricRegistry {

    private final List<MetricGroup> groups = new CopyOnWriteArrayList<>();

    @Override
    public MetricGroup createMetricGroup(String groupName, Map<String, String> variables) {
        MetricGroup group = new MetricGroupImpl(groupName, variables);
        groups.add(group);
        return group;
    }

    /** Every captured metric as {@code group.name -> value}; gauges that throw are left out. */
    public Map<String, Object> read() {
        Map<String, Object> values = new LinkedHashMap<>();
        for (MetricGroup group : groups) {
            for (Map.Entry<String, Metric> e : group.getMetrics().entrySet()) {
                Object value = valueOf(e.getValue());
                if (value != null) {
                    values.put(group.getGroupName() + "." + e.getKey(), value);
                }
            }
        }
        return values;
    }

    private static Object valueOf(Metric metric) {
        try {
            if (metric instanceof Gauge<?> gauge) {
                return gauge.getValue();
            }
            if (metric instanceof Counter counter) {
                return counter.getCount();
            }
        } catch (RuntimeException e) {
            return null;
        }
        return null;
    }
}
