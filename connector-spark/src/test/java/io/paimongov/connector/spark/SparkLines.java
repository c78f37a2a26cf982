package io.paimongov.connector.spark;

import java.lang.reflect.Method;
import java.util.OptionalLong;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;

/**
 * What the Spark lines this module's tests run on (4.0, 4.1 and 3.5: docs/compatibility.md) name or
 * keep differently, reached by reflection so that one test source compiles against each. Spark 4
 * moved the session and the dataset classes that hold {@code sharedState} and {@code showString} to
 * {@code org.apache.spark.sql.classic}; Spark 3.5 has them on the API classes. What Spark 3.5 does not
 * have at all is a flag here, and the checks of it are made where it is true.
 *
 * <p>Stateless; thread-safe.
 */
public final class SparkLines {

    /** Whether tasks report {@code peakOnHeapExecutionMemory} (Spark 4), the memory manager's own peak. */
    public static final boolean PEAK_ON_HEAP = method(TaskMetrics.class, "peakOnHeapExecutionMemory") != null;

    /**
     * Whether Spark asks a write for its driver-side metrics ({@code Write.reportDriverMetrics}, Spark 4),
     * which the SQL tab shows on the write's node; Spark 3.5 does not ask, so its SQL tab has none.
     */
    public static final boolean DRIVER_METRICS = method(Write.class, "reportDriverMetrics") != null;

    /** Whether Spark SQL has the VARIANT type (Spark 4). */
    public static final boolean VARIANT = exists("org.apache.spark.sql.types.VariantType");

    private SparkLines() {
    }

    /** The task's peak of on-heap execution memory, or empty on a line that keeps none ({@link #PEAK_ON_HEAP}). */
    public static OptionalLong peakOnHeapExecutionMemory(TaskMetrics metrics) {
        if (!PEAK_ON_HEAP) {
            return OptionalLong.empty();
        }
        return OptionalLong.of((Long) invoke(metrics, "peakOnHeapExecutionMemory"));
    }

    /** The rows as {@code Dataset.show(rows, truncate)} prints them. */
    public static String showString(Dataset<Row> rows, int numRows, int truncate) {
        return (String) invoke(rows, "showString", numRows, truncate, false);
    }

    /** The SQL tab's store of the session's Spark application. */
    public static SQLAppStatusStore statusStore(SparkSession spark) {
        Object shared = invoke(spark, "sharedState");
        return (SQLAppStatusStore) invoke(shared, "statusStore");
    }

    private static Object invoke(Object target, String name, Object... args) {
        for (Method m : target.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length) {
                try {
                    return m.invoke(target, args);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("Spark's " + target.getClass().getName() + "." + name + " failed", e);
                }
            }
        }
        throw new IllegalStateException(target.getClass().getName() + " has no public " + name + " of " + args.length
                + " arguments on this Spark line");
    }

    private static boolean exists(String className) {
        try {
            Class.forName(className, false, SparkLines.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static Method method(Class<?> type, String name) {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 0) {
                return m;
            }
        }
        return null;
    }
}
