package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.Providers;
import net.jqwik.api.Example;

/** DISCOVERY-*: the provider is found by name and refuses what it cannot honour. */
interface DiscoveryRules extends TckContext {

    private ClassLoader loader() {
        return provider().getClass().getClassLoader();
    }

    @Example
    @Verifies(Rule.DISCOVERY_1)
    default void required_DISCOVERY1_theProviderIsFoundByName() {
        String name = provider().name();
        GovernanceProvider found;
        try {
            found = Providers.load(name, loader());
        } catch (IllegalArgumentException e) {
            throw new AssertionError(Rule.DISCOVERY_1.fail("ServiceLoader does not find '" + name + "': " + e.getMessage()), e);
        }
        check(Rule.DISCOVERY_1, found.getClass() == provider().getClass(),
                "'" + name + "' is " + found.getClass().getName() + ", not " + provider().getClass().getName());
    }

    @Example
    @Verifies(Rule.DISCOVERY_2)
    default void required_DISCOVERY2_anUnknownNameListsTheAvailableOnes() {
        String unknown = provider().name() + "-no-such-provider";
        try {
            Providers.load(unknown, loader());
        } catch (IllegalArgumentException e) {
            check(Rule.DISCOVERY_2, e.getMessage().contains(provider().name()),
                    "the message for an unknown name does not list '" + provider().name() + "': " + e.getMessage());
            return;
        }
        throw new AssertionError(Rule.DISCOVERY_2.fail("loading '" + unknown + "' did not fail"));
    }

    @Example
    @Verifies(Rule.DISCOVERY_3)
    default void required_DISCOVERY3_anUnknownKeyOfTheProvidersOwnIsRejected() {
        String key = "governance." + provider().name() + ".no-such-key";
        try (TckSubject s = subject(4 << 20)) {
            EngineResources opened;
            try {
                opened = s.open(key, "1");
            } catch (IllegalArgumentException e) {
                check(Rule.DISCOVERY_3, e.getMessage() != null && e.getMessage().contains(key),
                        "the error does not name '" + key + "': " + e.getMessage());
                return;
            }
            opened.close();
            throw new AssertionError(Rule.DISCOVERY_3.fail("open() accepted the unknown key '" + key + "'"));
        }
    }
}
