package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.StandaloneEngine;
import java.nio.file.Path;
import java.util.Optional;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.PropagationMode;

/**
 * What every rule group shares: the vendor's factory and capabilities (declared through {@link
 * GovernanceVerification}'s constructor), the settings, and the way a rule fails or skips.
 */
@AddLifecycleHook(value = TckTries.class, propagateTo = PropagationMode.ALL_DESCENDANTS)
@AddLifecycleHook(value = OptionalRules.class, propagateTo = PropagationMode.ALL_DESCENDANTS)
abstract class TckBase {

    /** The provider under test. */
    protected abstract GovernanceProvider provider();

    /**
     * A standalone engine with {@code budgetBytes} of memory and its temp space under {@code
     * tempDir}; by default the provider's own {@link GovernanceProvider#standalone}. Empty means:
     * observe the engine through the provider's allocators.
     */
    protected Optional<StandaloneEngine> engine(long budgetBytes, Path tempDir) {
        return provider().standalone(budgetBytes, tempDir);
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
            dir = java.nio.file.Files.createTempDirectory("paimon-gov-tck-probe-");
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

    /** Whether the verification declares {@code capability}; the optional rules that need it skip otherwise. */
    abstract boolean supports(Capability capability);

    final TckSettings settings() {
        return TckSettings.fromSystemProperties();
    }

    final TckSubject subject(long budgetBytes) {
        return subject(budgetBytes, budgetBytes);
    }

    /** A subject whose writes have {@code budgetBytes} each, on an engine of {@code engineBytes}. */
    final TckSubject subject(long budgetBytes, long engineBytes) {
        return new TckSubject(
                provider(),
                (observed, budget, dir) ->
                        engine(budget, dir).orElseGet(() -> TckSubject.defaultEngine(observed, budget, dir)),
                budgetBytes,
                engineBytes);
    }

    /** Fails {@code rule} unless {@code ok}. */
    static void check(Rule rule, boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(rule.fail(what));
        }
    }

}
