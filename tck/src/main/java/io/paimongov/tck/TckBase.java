package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider.StandaloneEngine;
import io.paimongov.spi.GovernanceProvider;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.PropagationMode;

/**
 * The base of every verification class: the vendor's provider supplier and declared capabilities,
 * the engine each test runs on, and the kit's lifecycle hooks (tries, optional rules skipped,
 * required rules that cannot give a verdict failed). Vendors
 * extend {@link GovernanceVerification} (every rule) or one subject's class ({@link
 * MemoryVerification}, {@link WriteVerification}, {@link SpillVerification}, {@link
 * CancelVerification}, {@link MetricsVerification}, {@link DiscoveryVerification}, {@link
 * CompactionVerification}); the constructor is the kit's.
 *
 * <p>JUnit makes one instance per test; the supplier may be called from the test's thread only.
 */
@AddLifecycleHook(value = TckTries.class, propagateTo = PropagationMode.ALL_DESCENDANTS)
@AddLifecycleHook(value = OptionalRules.class, propagateTo = PropagationMode.ALL_DESCENDANTS)
@AddLifecycleHook(value = RequiredRules.class, propagateTo = PropagationMode.ALL_DESCENDANTS)
public abstract class TckBase implements TckContext {

    private final Supplier<? extends GovernanceProvider> provider;
    private final Set<Capability> capabilities;

    TckBase(Supplier<? extends GovernanceProvider> provider, Capability... capabilities) {
        this.provider = Objects.requireNonNull(provider, "provider");
        this.capabilities = capabilities.length == 0 ? EnumSet.noneOf(Capability.class) : EnumSet.of(capabilities[0], capabilities);
    }

    /**
     * The provider the supplier gives; called once per use. A supplier that makes a new instance
     * gives every rule, and every world a rule makes, a provider of its own, so that no rule's
     * verdict depends on what ran before it (docs/tck.md, "Order-free verdicts").
     */
    @Override
    public final GovernanceProvider provider() {
        return Objects.requireNonNull(provider.get(), "the provider supplier returned null");
    }

    @Override
    public boolean supports(Capability capability) {
        return capabilities.contains(capability);
    }

    /**
     * A standalone engine with {@code budgetBytes} of memory and its temp space under {@code
     * tempDir}; by default the provider's own {@link GovernanceProvider#standalone}. Empty means:
     * observe the engine through the provider's allocators.
     */
    protected Optional<StandaloneEngine> engine(long budgetBytes, Path tempDir) {
        return provider().standalone(budgetBytes, tempDir);
    }

    @Override
    public final TckSubject subject(long budgetBytes) {
        return subject(budgetBytes, budgetBytes);
    }

    @Override
    public final TckSubject subject(long budgetBytes, long engineBytes) {
        return new TckSubject(
                provider(),
                (observed, budget, dir) ->
                        engine(budget, dir).orElseGet(() -> TckSubject.defaultEngine(observed, budget, dir)),
                budgetBytes,
                engineBytes);
    }

    /** Whether {@link #engine} gives an engine at all. */
    final boolean hasStandaloneEngine() {
        return probeEngine(engine -> true);
    }

    /**
     * {@code test} on a fresh engine of 4 MiB in a temp directory of its own, closed and removed
     * afterwards; false when {@link #engine} gives none.
     */
    final boolean probeEngine(java.util.function.Predicate<StandaloneEngine> test) {
        Path dir;
        try {
            dir = java.nio.file.Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "paimon-gov-tck-probe-");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        try {
            Optional<StandaloneEngine> engine = engine(4L << 20, dir);
            if (engine.isEmpty()) {
                return false;
            }
            try (StandaloneEngine e = engine.get()) {
                return test.test(e);
            }
        } finally {
            TckSubject.deleteTree(dir);
        }
    }
}
