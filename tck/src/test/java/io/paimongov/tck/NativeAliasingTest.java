package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * MEM-5 sees memory that two live pages share even when their segment objects and addresses
 * differ: pages of real native memory that overlap by a few bytes.
 */
class NativeAliasingTest {

    @Test
    void overlappingNativePagesFailMem5() {
        TckReport report = TckRunner.runDiscovered("broken-native-overlap", getClass().getClassLoader(), Set.of(Rule.MEM_5), null);
        TckReport.RuleResult result = report.rule(Rule.MEM_5.id());
        assertEquals(TckReport.Status.FAILED, result.status(), result.toString());
        assertTrue(result.message().contains("shares memory with another live page"), result.message());
    }
}
