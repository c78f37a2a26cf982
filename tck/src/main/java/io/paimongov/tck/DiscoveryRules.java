package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.Providers;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.TreeSet;
import net.jqwik.api.Example;

/**
 * DISCOVERY-*: the provider is found by name and refuses what it cannot honour. What ServiceLoader
 * finds is read through the JDK's {@link ServiceLoader} itself, not through the runtime's {@link
 * Providers}, so that the runtime's answers are judged against an independent listing.
 */
interface DiscoveryRules extends TckContext {

    /** Not a name a provider can have: the rule asks for it to see the list of names the runtime gives. */
    String UNKNOWN_NAME = "tck unknown provider";

    private ClassLoader loader() {
        return provider().getClass().getClassLoader();
    }

    /** The providers ServiceLoader makes on {@code loader}: a fresh instance of each, in the listing's order. */
    static List<GovernanceProvider> serviceLoaded(ClassLoader loader) {
        return ServiceLoader.load(GovernanceProvider.class, loader).stream().map(ServiceLoader.Provider::get).toList();
    }

    @Example
    @Verifies(Rule.DISCOVERY_1)
    default void required_DISCOVERY1_theProviderIsFoundByName() {
        GovernanceProvider provider = provider();
        String name = provider.name();
        Class<?> type = provider.getClass();
        boolean listed = ServiceLoader.load(GovernanceProvider.class, loader()).stream().anyMatch(p -> p.type() == type);
        check(Rule.DISCOVERY_1, listed, type.getName() + " is not listed for ServiceLoader on its class loader");
        GovernanceProvider found;
        try {
            found = Providers.load(name, loader());
        } catch (IllegalArgumentException e) {
            throw new AssertionError(Rule.DISCOVERY_1.fail("ServiceLoader does not find '" + name + "': " + e.getMessage()), e);
        }
        check(Rule.DISCOVERY_1, found.getClass() == type,
                "'" + name + "' is " + found.getClass().getName() + ", not " + type.getName());
        // The name is what 'governance.provider' selects by in every later write, so opening one must not change it.
        String after;
        try (TckSubject s = subject(4 << 20)) {
            s.open().close();
            after = s.provider.vendor().name();
        }
        check(Rule.DISCOVERY_1, name.equals(after),
                "the provider was found as '" + name + "'; after it opened a write it says its name is '" + after + "'");
    }

    @Example
    @Verifies(Rule.DISCOVERY_2)
    default void required_DISCOVERY2_anUnknownNameListsTheAvailableOnes() {
        String name = provider().name();
        check(Rule.DISCOVERY_2, !name.isEmpty() && name.equals(name.toLowerCase(Locale.ROOT)) && name.chars().noneMatch(c -> Character.isWhitespace(c) || c == ','),
                "the name '" + name + "' is not lower case, or is empty, or holds a blank or a comma");
        List<String> names = serviceLoaded(loader()).stream().map(GovernanceProvider::name).toList();
        check(Rule.DISCOVERY_2, names.stream().filter(name::equals).count() == 1,
                "ServiceLoader finds " + names.stream().filter(name::equals).count() + " providers named '" + name + "': " + names);
        String message;
        try {
            Providers.load(UNKNOWN_NAME, loader());
            throw new AssertionError(Rule.DISCOVERY_2.fail("loading '" + UNKNOWN_NAME + "' did not fail"));
        } catch (IllegalArgumentException e) {
            message = String.valueOf(e.getMessage());
        }
        // The listing is what follows the last "found: "; the name asked for comes before it.
        int at = message.lastIndexOf("found: ");
        TreeSet<String> listed = at < 0 ? new TreeSet<>() : new TreeSet<>(Arrays.asList(message.substring(at + 7).split(", ")));
        check(Rule.DISCOVERY_2, listed.equals(new TreeSet<>(names)),
                "the message for an unknown name lists " + listed + "; ServiceLoader finds " + new TreeSet<>(names) + ": " + message);
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
