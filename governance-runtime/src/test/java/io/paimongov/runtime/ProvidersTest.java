package io.paimongov.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.spi.ProviderOptions;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    /** The error names the cause the provider's constructor gave, not only that it could not be made. */
    @Test
    void aProviderThatFailsToLoadReportsItsCauses(@TempDir Path dir) throws Exception {
        Path services = Files.createDirectories(dir.resolve("META-INF/services"));
        Files.writeString(services.resolve(GovernanceProvider.class.getName()), Failing.class.getName() + "\n");
        try (URLClassLoader withFailing = new URLClassLoader(new URL[] {dir.toUri().toURL()}, loader)) {
            assertThatThrownBy(() -> Providers.discover(withFailing))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("a governance provider failed to load: ")
                    .hasMessageContaining(Failing.class.getName())
                    .hasMessageEndingWith("; caused by java.lang.IllegalStateException: no engine memory manager here"
                            + "; caused by java.io.IOException: /engine/conf is missing");
        }
    }

    /** Its constructor throws, as a provider that cannot reach its engine might. */
    public static class Failing extends Alpha {
        public Failing() {
            throw new IllegalStateException("no engine memory manager here", new java.io.IOException("/engine/conf is missing"));
        }
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
