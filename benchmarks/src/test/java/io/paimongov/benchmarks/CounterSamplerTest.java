package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.launcher.JavaModuleOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outside figures of the providers' P2 ({@link ProviderBound}) against an independent model: a
 * child JVM ({@link HeldEngineChild}) that takes a known number of bytes, {@value #HELD_MIB} MiB,
 * through each engine's own call, and no write at all. The engine's counter must show exactly that
 * (every engine counts whole pages and buffers, and {@value #HELD_MIB} MiB is a whole number of
 * each). The native memory (NMT's "Other") must show it for the engines whose memory is native
 * (Arrow's buffer, Flink's pages) within {@link #NATIVE_TOLERANCE}: the category also holds the
 * JDK's and Netty's own small allocations made meanwhile (bookkeeping, NIO's temporary direct
 * buffers: tens of KiB here), while a lost or doubled buffer would be off by the whole held size.
 * Spark's execution memory is only counted (its pages are the caller's {@code byte[]}), so its
 * native figure stays near 0. The tests wait for the sampler's reads instead of timing them.
 */
class CounterSamplerTest {

    private static final long MIB = 1L << 20;
    private static final int HELD_MIB = 32;
    private static final long HELD = HELD_MIB * MIB;
    private static final long NATIVE_TOLERANCE = MIB;

    @TempDir Path dir;

    @Test
    void anArrowBufferShowsInTheNativeMemoryAndInArrowsCounter() throws Exception {
        Map<String, Long> r = held("offheap", "held");
        assertThat(r.get("engine")).isEqualTo(HELD);
        assertThat(r.get("own")).as("the root allocator's own peak").isEqualTo(HELD);
        assertThat(r.get("native")).isBetween(HELD - NATIVE_TOLERANCE, HELD + NATIVE_TOLERANCE);
    }

    @Test
    void flinkPagesShowInTheNativeMemoryAndInTheManagersCounter() throws Exception {
        Map<String, Long> r = held("flink", "held");
        assertThat(r.get("engine")).isEqualTo(HELD);
        assertThat(r.get("native")).isBetween(HELD - NATIVE_TOLERANCE, HELD + NATIVE_TOLERANCE);
    }

    @Test
    void sparkExecutionMemoryShowsInTheTasksCounterAndNotInTheNativeMemory() throws Exception {
        Map<String, Long> r = held("spark", "held");
        assertThat(r.get("engine")).isEqualTo(HELD);
        assertThat(r.get("own")).as("the task's own peak execution memory").isEqualTo(HELD);
        assertThat(r.get("native")).isLessThan(NATIVE_TOLERANCE);
    }

    @Test
    void nativeMemoryHeldBetweenTwoReadsIsFoundThroughTheTrackersOwnPeak() throws Exception {
        Map<String, Long> r = held("flink", "brief");
        assertThat(r.get("native")).isBetween(HELD - NATIVE_TOLERANCE, HELD + NATIVE_TOLERANCE);
    }

    @Test
    void anEnginesOwnPeakFindsMemoryHeldBetweenTwoReads() throws Exception {
        Map<String, Long> r = held("offheap", "brief");
        assertThat(r.get("own")).isEqualTo(HELD);
    }

    @Test
    void theNativeCategoryIsReadFromASummaryReport() {
        String report = """
                -                  Internal (reserved=209594, committed=209594)
                                            (malloc=172730 #1573) (peak=179169 #1497)
                -                     Other (reserved=100673536, committed=100673536)
                                            (malloc=100673536 #4) (peak=134227968 #5)
                -                    Symbol (reserved=1355160, committed=1355160)
                """;
        assertThat(NativeMemory.parse(report, "Other")).isEqualTo(new NativeMemory.Reading(100673536, 134227968));
        String atPeak = "-                     Other (reserved=10240, committed=10240)\n                            (malloc=10240 #2) (at peak)\n";
        assertThat(NativeMemory.parse(atPeak, "Other")).isEqualTo(new NativeMemory.Reading(10240, 10240));
    }

    private Map<String, Long> held(String provider, String mode) throws Exception {
        List<String> jvm = new java.util.ArrayList<>(List.of("-Xmx256m", NativeMemory.FLAG));
        jvm.addAll(Arrays.asList(JavaModuleOptions.defaultModuleOptionArray()));
        ChildJvm.Ended ended = ChildJvm.run(dir, jvm, 120, HeldEngineChild.class,
                List.of(provider, Long.toString(HELD), mode, dir.resolve("engine").toString()));
        assertThat(ended.exitCode()).as(ended.tail(20)).isZero();
        String line = ended.output().lines().filter(l -> l.startsWith("HELD ")).findFirst().orElseThrow();
        Map<String, Long> values = new HashMap<>();
        for (String kv : line.substring(5).split(" ")) {
            String[] p = kv.split("=", 2);
            values.put(p[0], Long.parseLong(p[1]));
        }
        return values;
    }
}
