package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import java.util.function.Supplier;

/**
 * The kit a vendor runs against an allocator: extend it in a test, give it your provider and the
 * optional capabilities your engine has, and every rule of {@link Rule} runs as a test (JUnit
 * Platform, jqwik engine).
 *
 * <pre>{@code
 * class MyAllocatorTckTest extends GovernanceVerification {
 *     MyAllocatorTckTest() {
 *         super(MyProvider::new, Capability.ENGINE_CANCELLATION);
 *     }
 * }
 * }</pre>
 *
 * <p>The one factory is the provider supplier, called for a fresh provider wherever a rule needs
 * one; the engine each test runs on comes from {@link GovernanceProvider#standalone} unless {@link
 * #engine} is overridden. An optional rule whose {@link Capability} is not declared is skipped with
 * its reason, never passed. A required rule that cannot run for the provider (no standalone engine)
 * or could not judge fails with the reason ({@link RequiredRules}): the provider does not conform
 * until it passes, and the build says so as the {@code tck} command does.
 *
 * <p>The rules of one subject alone run in that subject's class instead: {@link MemoryVerification}
 * (MEM-*), {@link WriteVerification}, {@link SpillVerification}, {@link CancelVerification}, {@link
 * MetricsVerification}, {@link DiscoveryVerification}, {@link CompactionVerification}, each
 * extended the same way.
 *
 * <p>Every failure message starts with the rule id ({@code [MEM-4] ...}) and ends with where to
 * look. Tries and sizes come from system properties ({@link TckSettings}). Each test makes its own
 * engine, temp directory and tables, and removes them.
 *
 * <p>JUnit makes one instance per test; the supplier may be called from the test's thread only.
 */
public abstract class GovernanceVerification extends TckBase
        implements EngineRules, WriteRules, SpillRules, CancelRules, MetricsRules, DiscoveryRules, CompactionRules, ReadRules {

    /**
     * @param provider makes the provider under test; called once per use: return a new instance
     *     each time ({@code MyProvider::new}), so that no rule sees what another left in a provider
     * @param capabilities what the provider's engine can do beyond the required rules
     */
    protected GovernanceVerification(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        super(provider, capabilities);
    }
}
