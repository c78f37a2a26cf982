package io.paimongov.tck;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The fields in which two records differ, for failure messages that compare two snapshots: {@code
 * inputRows (the engine got 20001, the write's is 20000)}. Fields that are maps (Paimon's metrics of
 * a {@code MetricsSnapshot}) are compared key by key. Every component is read through the record's
 * own accessors, so a field added to the record is compared too. Stateless.
 */
final class SnapshotDiff {

    private SnapshotDiff() {}

    /**
     * The differing fields of {@code a} and {@code b}, records of one type, each as {@code field
     * (<aName> x, <bName> y)}, joined with {@code ", "}; {@code "no field"} when they are equal field
     * by field.
     */
    static String between(Record a, Record b, String aName, String bName) {
        if (a.getClass() != b.getClass()) {
            throw new IllegalArgumentException("not one type: " + a.getClass().getName() + " and " + b.getClass().getName());
        }
        List<String> differences = new ArrayList<>();
        for (RecordComponent c : a.getClass().getRecordComponents()) {
            Object x = read(c, a);
            Object y = read(c, b);
            if (x instanceof Map<?, ?> mx && y instanceof Map<?, ?> my) {
                TreeSet<String> keys = new TreeSet<>();
                mx.keySet().forEach(k -> keys.add(String.valueOf(k)));
                my.keySet().forEach(k -> keys.add(String.valueOf(k)));
                for (String k : keys) {
                    Object vx = mx.get(k);
                    Object vy = my.get(k);
                    if (!Objects.equals(vx, vy)) {
                        differences.add(c.getName() + "." + k + " (" + aName + " " + absent(mx, k, vx) + ", " + bName + " " + absent(my, k, vy) + ")");
                    }
                }
            } else if (!Objects.equals(x, y)) {
                differences.add(c.getName() + " (" + aName + " " + x + ", " + bName + " " + y + ")");
            }
        }
        return differences.isEmpty() ? "no field" : String.join(", ", differences);
    }

    private static String absent(Map<?, ?> map, String key, Object value) {
        return value == null && !map.containsKey(key) ? "none" : String.valueOf(value);
    }

    private static Object read(RecordComponent c, Record r) {
        try {
            return c.getAccessor().invoke(r);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c.getName() + " of " + r.getClass().getName(), e);
        }
    }
}
