package io.paimongov.flink;

import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.function.Supplier;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Every field of {@link MetricsSnapshot} as a Flink gauge in the group {@value #GROUP} under the
 * engine's metric group (the writer operator's): {@code paimonGovernance.inputRows}, {@code
 * paimonGovernance.peakReservedBytes}, ... Gauges read the write's live snapshot until the write
 * closes and its final snapshot afterwards, so a reporter that polls late still sees the end state.
 *
 * <p>The gauges are made from the record's components, so a field added to the snapshot becomes a
 * gauge without a change here. The {@code paimon} map (Paimon's own writer metrics) is exported at
 * {@link #writeClosed}, one gauge per key of the final snapshot in the subgroup {@value
 * #PAIMON_GROUP} ({@code paimonGovernance.paimon.<key>}): its keys appear only at the first
 * prepareCommit, after the other gauges are registered, so while the write runs it is not exported.
 *
 * <p><b>Thread-safety:</b> gauges may be read by Flink's reporter threads at any time; the current
 * source is a volatile reference. {@link #writeOpened} and {@link #writeClosed} do not throw for a
 * metric Flink refuses (Flink logs a duplicate name itself).
 */
public final class FlinkMetricGroupReporter implements MetricsReporter {

    public static final String GROUP = "paimonGovernance";

    /** The subgroup of {@link #GROUP} that holds the final snapshot's {@code paimon} map. */
    public static final String PAIMON_GROUP = "paimon";

    private final MetricGroup group;
    private volatile Supplier<MetricsSnapshot> source;

    FlinkMetricGroupReporter(MetricGroup engineGroup) {
        this.group = engineGroup.addGroup(GROUP);
    }

    @Override
    public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
        source = live;
        for (RecordComponent field : MetricsSnapshot.class.getRecordComponents()) {
            Class<?> type = field.getType();
            if (type == long.class || type == double.class) {
                Method accessor = field.getAccessor();
                group.gauge(field.getName(), (Gauge<Object>) () -> read(accessor));
            }
        }
    }

    @Override
    public void writeClosed(String writeName, MetricsSnapshot last) {
        source = () -> last;
        if (!last.paimon().isEmpty()) {
            MetricGroup paimon = group.addGroup(PAIMON_GROUP);
            last.paimon().forEach((key, value) -> paimon.gauge(key, (Gauge<Object>) () -> value));
        }
    }

    private Object read(Method accessor) {
        try {
            return accessor.invoke(source.get());
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + accessor.getName() + " of a metrics snapshot", e);
        }
    }
}
