package io.paimongov.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/*
 * How: the JVM's Native Memory Tracking, read in this JVM through the DiagnosticCommand MBean
 * (what `jcmd <pid> VM.native_memory summary scale=b` prints). Every native allocation made with
 * Unsafe.allocateMemory lands in the category "Other" on JDK 17: direct ByteBuffers, Netty's direct
 * buffers under Arrow's allocator (arrow-memory-netty), Flink's MemoryManager pages
 * (MemorySegmentFactory.allocateOffHeapUnsafeMemory). NativeMemoryTest holds a known size through
 * Arrow and through Flink in a child JVM and finds it there. A read takes about 0.1 ms here.
 *
 * Besides what the category holds now, NMT keeps the most its malloc part ever held ("peak=" or
 * "at peak"): a peak between two reads is not lost.
 */

/**
 * What the JVM's own Native Memory Tracking counts for the category off-heap engines' pages land
 * in ({@value #CATEGORY}): the outside figure the benchmarks judge a native-memory bound by, read
 * from the JVM and never from a write's accounting or the engine's counter. The JVM must run with
 * {@value #FLAG} (a {@link ChildJvm} given it).
 *
 * <p>Stateless; thread-safe. <b>May throw:</b> {@link IllegalStateException} when the JVM does
 * not track native memory or its report has no {@value #CATEGORY} line.
 */
public final class NativeMemory {

    /** The JVM flag that turns the tracking on; it must be given at start. */
    public static final String FLAG = "-XX:NativeMemoryTracking=summary";
    /** The category {@code Unsafe.allocateMemory} lands in on JDK 17. */
    public static final String CATEGORY = "Other";

    /**
     * One reading of the category.
     *
     * @param committedBytes what it holds now
     * @param peakBytes the most its malloc part ever held since the JVM started, as NMT keeps it;
     *     {@code committedBytes} when this JVM's report gives no peak
     */
    public record Reading(long committedBytes, long peakBytes) {}

    private NativeMemory() {}

    /** The category {@value #CATEGORY} now. */
    public static Reading read() {
        return parse(report(), CATEGORY);
    }

    /** The reading of {@code category} in an NMT summary report in bytes ({@code scale=b}). */
    static Reading parse(String report, String category) {
        Matcher line = Pattern.compile("-\\s+" + Pattern.quote(category) + " \\(reserved=(\\d+), committed=(\\d+)\\)\\s*\\n([^\\n]*)")
                .matcher(report);
        if (!line.find()) {
            throw new IllegalStateException("Native Memory Tracking reports no category '" + category + "' (is " + FLAG
                    + " set?): " + report.lines().limit(3).toList());
        }
        long committed = Long.parseLong(line.group(2));
        String detail = line.group(3);
        Matcher malloc = Pattern.compile("malloc=(\\d+)").matcher(detail);
        Matcher peak = Pattern.compile("peak=(\\d+)").matcher(detail);
        long peakBytes = committed;
        if (peak.find()) {
            peakBytes = Math.max(committed, Long.parseLong(peak.group(1)));
        } else if (detail.contains("at peak") && malloc.find()) {
            peakBytes = Math.max(committed, Long.parseLong(malloc.group(1)));
        }
        return new Reading(committed, peakBytes);
    }

    private static String report() {
        try {
            return (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary", "scale=b"}}, new String[] {String[].class.getName()});
        } catch (JMException e) {
            throw new IllegalStateException("cannot read Native Memory Tracking", e);
        }
    }
}
