package io.paimongov.tck;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.StandaloneEngine;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The kit a vendor runs against an allocator: extend it in a test, give it your provider, and every
 * rule of {@link Rule} runs as a test (JUnit Platform, jqwik engine).
 *
 * <pre>{@code
 * class MyAllocatorTckTest extends GovernanceVerification {
 *     protected GovernanceProvider provider() { return new MyProvider(); }
 *     protected boolean supportsEngineCancellation() { return true; }
 * }
 * }</pre>
 *
 * <p>The one factory is {@link #provider()}; the engine each test runs on comes from {@link
 * GovernanceProvider#standalone} unless {@link #engine} is overridden. Optional capabilities are
 * declared by overriding {@link #supportsEngineCancellation()} and {@link
 * #supportsEngineMetrics()}; an optional rule that does not apply is skipped with its reason, never
 * passed.
 *
 * <p>Every failure message starts with the rule id ({@code [MEM-4] ...}) and ends with where to
 * look. Tries and sizes come from system properties ({@link TckSettings}). Each test makes its own
 * engine, temp directory and tables, and removes them.
 */
public abstract class GovernanceVerification extends CompactionRules {

    @Override
    protected abstract GovernanceProvider provider();

    @Override
    protected Optional<StandaloneEngine> engine(long budgetBytes, Path tempDir) {
        return super.engine(budgetBytes, tempDir);
    }

    @Override
    protected boolean supportsEngineCancellation() {
        return super.supportsEngineCancellation();
    }

    @Override
    protected boolean supportsEngineMetrics() {
        return super.supportsEngineMetrics();
    }
}
