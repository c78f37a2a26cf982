package io.paimongov.spark;

import io.paimongov.spi.metrics.MetricsSnapshot;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;

/** A copy of a snapshot with one field read from Spark. Stateless; thread-safe. */
final class Snapshots {

    private Snapshots() {}

    /** {@code snapshot} with {@code spillBytes} replaced. */
    static MetricsSnapshot withSpillBytes(MetricsSnapshot snapshot, long spillBytes) {
        RecordComponent[] components = MetricsSnapshot.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                values[i] = components[i].getName().equals("spillBytes") ? (Object) spillBytes : components[i].getAccessor().invoke(snapshot);
            }
            Constructor<MetricsSnapshot> constructor = MetricsSnapshot.class.getDeclaredConstructor(types);
            return constructor.newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot copy a metrics snapshot", e);
        }
    }
}
