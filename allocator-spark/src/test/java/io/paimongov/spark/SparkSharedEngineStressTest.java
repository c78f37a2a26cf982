package io.paimongov.spark;

import io.paimongov.tck.SharedEngineStress;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random concurrent page and byte requests on three writes sharing one standalone spark engine smaller
 * than their budgets together: never over a capacity (sampled), no page handed out twice, all back
 * at the end ({@link SharedEngineStress}; {@code governance.reliability.ops} operations).
 */
@Tag("reliability")
class SparkSharedEngineStressTest {

    @TempDir Path dir;

    @Test
    void randomConcurrentRequestsOnOneEngineStayWithinItAndAllComeBack() throws Exception {
        SharedEngineStress.run(new SparkGovernanceProvider(), dir, Integer.getInteger("governance.reliability.ops", 4000));
    }
}
