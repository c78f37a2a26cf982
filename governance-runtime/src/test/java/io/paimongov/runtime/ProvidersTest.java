package io.paimongov.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.ProviderOptions;
import org.junit.jupiter.api.Test;

/** Two providers are registered in this module's test resources: alpha and beta. */
class ProvidersTest {

    private final ClassLoader loader = getClass().getClassLoader();

    @Test
    void discoversProvidersSortedByName() {
        assertThat(Providers.discover(loader)).extracting(GovernanceProvider::name).containsExactly("alpha", "beta");
    }

    @Test
    void loadsByName() {
        assertThat(Providers.load("beta", loader).name()).isEqualTo("beta");
    }

    @Test
    void unknownNameListsTheProvidersFound() {
        assertThatThrownBy(() -> Providers.load("gamma", loader))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown governance provider 'gamma' ('governance.provider'); found: alpha, beta");
    }

    @Test
    void noNameWithSeveralProvidersIsAnError() {
        assertThatThrownBy(() -> Providers.load(null, loader))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("several governance providers found [alpha, beta]; choose one with 'governance.provider'");
    }

    @Test
    void noProviderAtAll() {
        ClassLoader empty = new ClassLoader(null) {};
        assertThatThrownBy(() -> Providers.load("", empty))
                .hasMessage("no governance provider found on the class path; add an allocator module such as allocator-heap");
        assertThatThrownBy(() -> Providers.load("heap", empty))
                .hasMessage("unknown governance provider 'heap' ('governance.provider'); found: none");
    }

    /** A provider that only has a name; selection never opens it. */
    public static class Alpha implements GovernanceProvider {
        @Override
        public String name() {
            return "alpha";
        }

        @Override
        public EngineResources open(ProviderOptions options, EngineEnvironment env) {
            throw new UnsupportedOperationException("selection test only");
        }
    }

    public static class Beta extends Alpha {
        @Override
        public String name() {
            return "beta";
        }
    }
}
