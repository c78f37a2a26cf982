package io.paimongov.nativehost;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.tck.Rule;
import io.paimongov.tck.TckReport;
import io.paimongov.tck.TckRunner;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The kit on native allocators: hosts of the tests' C library, written against the header alone,
 * run through the kit as {@code tck --provider native} runs them (the provider found by name, the
 * host library named by system properties). Each broken host fails the rule that names its fault,
 * for that fault; a correct host of the same library passes the same rules. docs/native.md lists
 * the same table.
 */
class BrokenNativeHostsTest {

    /** The fault's args, the rule it must fail and what only its fault puts in that rule's message. */
    private record Fault(String args, Rule rule, String fragment) {}

    private static final Map<String, Fault> FAULTS = Map.of(
            "over-granting", new Fault("mode=overgrant", Rule.MEM_1, "its callback try_reserve granted"),
            "double release", new Fault("mode=double-release", Rule.MEM_6, "after close the engine's counter is -"),
            "a cancel that never answers", new Fault("mode=cancel-hangs,timeout=500,hang=3000", Rule.CANCEL_5,
                    "yet the write ended with"));

    @AfterEach
    void forgetTheLibrary() {
        System.clearProperty(NativeGovernanceProvider.LIBRARY_PROPERTY);
        System.clearProperty(NativeGovernanceProvider.ARGS_PROPERTY);
    }

    private TckReport.RuleResult run(String args, Rule rule) {
        System.setProperty(NativeGovernanceProvider.LIBRARY_PROPERTY, TestHosts.library().toString());
        System.setProperty(NativeGovernanceProvider.ARGS_PROPERTY, args);
        return TckRunner.runDiscovered(NativeGovernanceProvider.NAME, getClass().getClassLoader(), Set.of(rule), null).rule(rule.id());
    }

    @TestFactory
    Stream<DynamicTest> eachBrokenHostFailsTheRuleThatNamesItsFault() {
        return FAULTS.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(f -> DynamicTest.dynamicTest(
                f.getKey() + " fails " + f.getValue().rule().id(), () -> {
                    TckReport.RuleResult result = run(f.getValue().args(), f.getValue().rule());
                    assertThat(result.status()).as(result.toString()).isEqualTo(TckReport.Status.FAILED);
                    assertThat(result.message()).startsWith("[" + f.getValue().rule().id() + "] ").contains(f.getValue().fragment());
                }));
    }

    @TestFactory
    Stream<DynamicTest> aCorrectHostOfTheSameLibraryPassesThoseRules() {
        return FAULTS.values().stream().map(Fault::rule).distinct().sorted().map(rule -> DynamicTest.dynamicTest(
                "a correct host passes " + rule.id(), () -> {
                    TckReport.RuleResult result = run("mode=correct", rule);
                    assertThat(result.status()).as(result.toString()).isEqualTo(TckReport.Status.PASSED);
                }));
    }
}
