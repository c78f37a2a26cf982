package io.paimongov.tck;

/**
 * An optional capability of a provider's engine that a verification declares, which turns on the
 * rules that need it. A declared capability is checked like any required rule; an undeclared one
 * skips its rules with the reason, never passes them.
 */
public enum Capability {
    /** The engine can cancel a write from its side ({@code StandaloneEngine.cancel}). Enables CANCEL-5. */
    ENGINE_CANCELLATION,
    /** The engine's metric system can be read back ({@code StandaloneEngine.reportedMetrics}). Enables METRICS-3 and METRICS-4. */
    ENGINE_METRICS
}
