package io.paimongov.tck;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.ProviderOptions;
import org.slf4j.LoggerFactory;

/**
 * The reference provider, correct, that prints on every open: a line to each of {@code System.out}
 * and {@code System.err} and a warning with a stack trace through slf4j, as an engine logging an
 * expected fault does. The runner must keep all three out of the console.
 */
public final class NoisyProvider extends ReferenceProvider {

    static final String LINE = "noisy provider: opened";

    @Override
    public String name() {
        return "noisy";
    }

    @Override
    public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
        System.out.println(LINE + " (out)");
        System.err.println(LINE + " (err)");
        LoggerFactory.getLogger(NoisyProvider.class).warn(LINE + " (log)", new IllegalStateException("an expected fault"));
        return super.open(options, environment);
    }
}
