package io.paimongov.tck;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.ProviderOptions;

/** Providers broken in how they are found or configured (DISCOVERY-*), one thing each. */
public final class BrokenDiscoveryProviders {

    private BrokenDiscoveryProviders() {}

    /**
     * Names itself after the first write it opens: found as {@code broken-renames-itself}, it then
     * answers to another name, so that 'governance.provider' no longer finds it.
     */
    public static final class RenamesItself extends ReferenceProvider {
        private volatile String name = "broken-renames-itself";

        @Override
        public String name() {
            return name;
        }

        @Override
        public EngineResources open(ProviderOptions options, EngineEnvironment environment) {
            EngineResources resources = super.open(options, environment);
            name = "broken-renames-itself-" + options.pageSize();
            return resources;
        }

        /** Its own namespace keeps the name it was opened under. */
        @Override
        void validate(ProviderOptions options) {
            options.rejectUnknownKeys("broken-renames-itself", java.util.List.of());
        }
    }

    /** Its name is not lower case (PROV.2); everything else is the reference provider. */
    public static final class MixedCaseName extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-Mixed-Case";
        }
    }

    /** Accepts any key of its own namespace {@code governance.broken-accepts-unknown-keys.*} (PROV.3). */
    public static final class AcceptsUnknownKeys extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-accepts-unknown-keys";
        }

        @Override
        void validate(ProviderOptions options) {}
    }
}
