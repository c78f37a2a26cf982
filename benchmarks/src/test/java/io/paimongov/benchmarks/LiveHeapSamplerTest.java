package io.paimongov.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sampler against an independent model: a child JVM ({@link HeldHeapChild}) that holds a known
 * number of bytes, and no write at all. Its live heap peak less its baseline must be that number,
 * within 2 MiB and 5% of it (the JVM's own noise: the sampler's thread, its notifications, the
 * JIT's code). The child holds its bytes until the sampler has read a live heap at least the lower
 * end of that range above its baseline, so the tests wait for the sampler instead of timing it: a
 * rule that never collects with the block held, or reads less, leaves the child waiting until it
 * gives up (exit 1, and the test fails); the upper end is judged on the peak it printed. Each rule is
 * tested alone: the periodic collections with an old-generation step too large to be reached, the
 * collections at old-generation highs with a period too long to come. A JVM without {@link
 * ChildJvm#MEASURING_COLLECTOR} is refused.
 */
class LiveHeapSamplerTest {

    private static final long MIB = 1L << 20;
    private static final long HELD = 32 * MIB;

    @TempDir Path dir;

    @Test
    void thePeriodicCollectionsFindAHeldBlock() throws Exception {
        Map<String, Long> r = held(50, Long.MAX_VALUE / 4);
        assertThat(r.get("peak") - r.get("baseline")).isBetween(HELD - tolerance(), HELD + tolerance());
        assertThat(r.get("own")).isPositive();
    }

    @Test
    void theCollectionsAtOldGenerationHighsFindAHeldBlockWithoutAPeriod() throws Exception {
        // A step of 2 MiB: a collection while the block is allocated leaves at most one array to come,
        // or the rest grows the old generation by a step and is read.
        Map<String, Long> r = held(3_600_000, 2 * MIB);
        assertThat(r.get("peak") - r.get("baseline")).isBetween(HELD - tolerance(), HELD + tolerance());
    }

    @Test
    void aJvmWhoseFullCollectionsMayLeaveDeadObjectsIsNotRead() throws Exception {
        // The serial collector with HotSpot's default dead ratio: three full collections in four
        // may count dead objects as used, so the child refuses to take its baseline.
        ChildJvm.Ended ended = ChildJvm.run(dir.resolve("defaults"), List.of("-Xmx128m", "-Xms128m", "-XX:+UseSerialGC"), 120,
                HeldHeapChild.class, List.of(Long.toString(HELD), "50", Long.toString(Long.MAX_VALUE / 4), Long.toString(HELD - tolerance())));
        assertThat(ended.exitCode()).as(ended.output()).isNotZero();
        assertThat(ended.output()).contains("IllegalStateException", "-XX:MarkSweepDeadRatio=0", "MarkSweepDeadRatio=5")
                .doesNotContain("HELD ");
    }

    @Test
    void theOldGenerationRuleCollectsAtTheFirstLookThenAStepAboveTheHighAfterCollection() {
        assertThat(LiveHeapSampler.grown(0, LiveHeapSampler.NO_HIGH, 10)).isTrue();
        assertThat(LiveHeapSampler.grown(19, 10, 10)).isFalse();
        assertThat(LiveHeapSampler.grown(20, 10, 10)).isTrue();
    }

    @Test
    void theDutyRuleWaitsNineTimesTheLastCollectionsLength() {
        // A collection of 10 ns that ended at 100: the next may start at 190, not before.
        assertThat(LiveHeapSampler.dutyAllows(189, 100, 10)).isFalse();
        assertThat(LiveHeapSampler.dutyAllows(190, 100, 10)).isTrue();
        assertThat(LiveHeapSampler.dutyAllows(0, Long.MIN_VALUE, 0)).isTrue();
    }

    private static long tolerance() {
        return 2 * MIB + HELD / 20;
    }

    private Map<String, Long> held(long everyMillis, long stepBytes) throws Exception {
        ChildJvm.Ended ended = ChildJvm.run(dir.resolve("child"), 128 * MIB, 120, HeldHeapChild.class,
                List.of(Long.toString(HELD), Long.toString(everyMillis), Long.toString(stepBytes),
                        Long.toString(HELD - tolerance())));
        assertThat(ended.exitCode()).as(ended.output()).isZero();
        String line = ended.output().lines().filter(l -> l.startsWith("HELD ")).findFirst().orElseThrow();
        Map<String, Long> values = new HashMap<>();
        for (String pair : line.substring("HELD ".length()).split(" ")) {
            String[] kv = pair.split("=", 2);
            values.put(kv[0], Long.parseLong(kv[1]));
        }
        return values;
    }
}
