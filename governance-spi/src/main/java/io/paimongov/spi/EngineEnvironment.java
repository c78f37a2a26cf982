package io.paimongov.spi;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What an engine hands to a provider when a write opens: typed engine objects such as Flink's
 * {@code MemoryManager} or Spark's {@code TaskContext}, keyed by their type. Contract: docs/spi.md,
 * clause ENV.1.
 *
 * <p>Immutable and thread-safe; its {@link Builder} is not. Build one with {@link #builder()}.
 */
public final class EngineEnvironment {

    private static final EngineEnvironment STANDALONE = new EngineEnvironment(Map.of());

    private final Map<Class<?>, Object> objects;

    private EngineEnvironment(Map<Class<?>, Object> objects) {
        this.objects = objects;
    }

    /** An environment with no engine objects: the process itself is the engine. */
    public static EngineEnvironment standalone() {
        return STANDALONE;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The engine object registered under {@code type}, if any. */
    public <T> Optional<T> find(Class<T> type) {
        return Optional.ofNullable(type.cast(objects.get(type)));
    }

    /** The engine's {@link CancellationSignal}, or {@link CancellationSignal#never()} when it gave none. */
    public CancellationSignal cancellationOrNever() {
        return find(CancellationSignal.class).orElse(CancellationSignal.never());
    }

    /** The engine's {@link MetricsReporter}, or {@link MetricsReporter#none()} when it gave none. */
    public MetricsReporter metricsOrNone() {
        return find(MetricsReporter.class).orElse(MetricsReporter.none());
    }

    /**
     * The engine object registered under {@code type}.
     *
     * @throws IllegalStateException naming the type and the provider when it is absent
     */
    public <T> T require(Class<T> type, String provider) {
        return find(type)
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "provider '"
                                                + provider
                                                + "' needs a "
                                                + type.getName()
                                                + " in the EngineEnvironment; add it with"
                                                + " EngineEnvironment.builder().with("
                                                + type.getSimpleName()
                                                + ".class, value)"));
    }

    /** Collects engine objects; not thread-safe. */
    public static final class Builder {
        private final Map<Class<?>, Object> objects = new LinkedHashMap<>();

        private Builder() {}

        public <T> Builder with(Class<T> type, T value) {
            objects.put(Objects.requireNonNull(type, "type"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public EngineEnvironment build() {
            return new EngineEnvironment(Map.copyOf(objects));
        }
    }
}
