package io.paimongov.flink;

import io.paimongov.spi.MetricsReporter;
import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>Once per metric group. Flink cannot remove a metric from a group, and refuses a second of the
 * same name (it logs a name collision and keeps the first), so the gauges of a group are registered
 * by the first write that reports into it and read the group's {@link Sources}, which each later
 * write into the same group takes over: the gauges show the write opened last, and a group's
 * registrations do not grow with its writes (docs/spi.md RES.5). A writer operator opens one write
 * into its own group; the standalone engine opens many into one.
 *
 * <p><b>Thread-safety:</b> gauges may be read by Flink's reporter threads at any time; the current
 * source is a volatile reference. {@link #writeOpened} and {@link #writeClosed} may run on any
 * thread (METRICS.5) and do not throw for a metric Flink refuses.
 */
public final class FlinkMetricGroupReporter implements MetricsReporter {

    public static final String GROUP = "paimonGovernance";

    /** The subgroup of {@link #GROUP} that holds the final snapshot's {@code paimon} map. */
    public static final String PAIMON_GROUP = "paimon";

    /** The sources of each {@value #GROUP} group whose gauges are registered; a group's entry goes with the group. */
    private static final Map<MetricGroup, Sources> GROUPS = Collections.synchronizedMap(new WeakHashMap<>());

    private final MetricGroup group;
    private volatile Supplier<MetricsSnapshot> mine;

    FlinkMetricGroupReporter(MetricGroup engineGroup) {
        this.group = engineGroup.addGroup(GROUP);
    }

    /**
     * A reporter of a governed context on {@code operatorGroup} that another provider serves (a
     * lookup function's heap budget): the same {@value #GROUP} gauges the {@code flink} provider
     * registers for its writes.
     */
    public static MetricsReporter of(MetricGroup operatorGroup) {
        return new FlinkMetricGroupReporter(operatorGroup);
    }

    @Override
    public void writeOpened(String writeName, Supplier<MetricsSnapshot> live) {
        mine = live;
        Sources sources = sources(live);
        sources.current = live;
        sources.paimon = Map.of(); // this write's keys come when it closes
    }

    @Override
    public void writeClosed(String writeName, MetricsSnapshot last) {
        Supplier<MetricsSnapshot> end = () -> last;
        Sources sources = sources(end);
        if (sources.current != mine && mine != null) {
            return; // a write opened after this one into the same group has the gauges now
        }
        sources.current = end;
        sources.paimon = last.paimon();
        if (!last.paimon().isEmpty()) {
            MetricGroup paimon = group.addGroup(PAIMON_GROUP);
            for (String key : last.paimon().keySet()) {
                if (sources.paimonKeys.add(key)) {
                    paimon.gauge(key, (Gauge<Object>) () -> sources.paimon.get(key));
                }
            }
        }
    }

    /** The group's sources, its gauges registered by the first write that asks, reading {@code initial} until told otherwise. */
    private Sources sources(Supplier<MetricsSnapshot> initial) {
        synchronized (GROUPS) {
            Sources sources = GROUPS.get(group);
            if (sources == null) {
                sources = new Sources();
                sources.current = initial;
                GROUPS.put(group, sources);
                for (RecordComponent field : MetricsSnapshot.class.getRecordComponents()) {
                    Class<?> type = field.getType();
                    if (type == long.class || type == double.class) {
                        Method accessor = field.getAccessor();
                        Sources read = sources;
                        group.gauge(field.getName(), (Gauge<Object>) () -> read(accessor, read.current));
                    }
                }
            }
            return sources;
        }
    }

    /** What the gauges of one group read: the snapshot of the write opened last, and its final {@code paimon} map. */
    private static final class Sources {
        volatile Supplier<MetricsSnapshot> current;
        volatile Map<String, Object> paimon = Map.of();
        final Set<String> paimonKeys = ConcurrentHashMap.newKeySet();
    }

    private static Object read(Method accessor, Supplier<MetricsSnapshot> source) {
        try {
            return accessor.invoke(source.get());
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + accessor.getName() + " of a metrics snapshot", e);
        }
    }
}
