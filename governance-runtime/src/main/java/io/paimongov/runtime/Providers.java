package io.paimongov.runtime;

import io.paimongov.spi.GovernanceProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Finds {@link GovernanceProvider}s with {@link ServiceLoader}. Selection fails loudly: an unknown
 * name lists the names found; two providers with one name is an error; no name with several
 * providers on the class path is an error, never "the first one found".
 *
 * <p>Thread-safe (stateless); every call scans the class loader again.
 */
public final class Providers {

    private Providers() {}

    /** The providers visible to {@code loader}, sorted by name. */
    public static List<GovernanceProvider> discover(ClassLoader loader) {
        TreeMap<String, GovernanceProvider> byName = new TreeMap<>();
        try {
            for (GovernanceProvider provider : ServiceLoader.load(GovernanceProvider.class, loader)) {
                GovernanceProvider previous = byName.putIfAbsent(provider.name(), provider);
                if (previous != null) {
                    throw new IllegalStateException(
                            "two governance providers are named '"
                                    + provider.name()
                                    + "': "
                                    + previous.getClass().getName()
                                    + " and "
                                    + provider.getClass().getName());
                }
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException("a governance provider failed to load: " + e.getMessage() + causes(e), e);
        }
        return new ArrayList<>(byName.values());
    }

    /** The causes of {@code e}, each as "; caused by type: message": why a provider could not be made. */
    private static String causes(Throwable e) {
        StringBuilder out = new StringBuilder();
        int depth = 0;
        for (Throwable c = e.getCause(); c != null && depth < 10; c = c.getCause(), depth++) {
            out.append("; caused by ").append(c);
        }
        return out.toString();
    }

    /**
     * The provider named {@code name}; with a null or blank name, the only provider present.
     *
     * @throws IllegalArgumentException when no provider has that name (lists those found), or when
     *     no name is given and the count of providers is not exactly one
     */
    public static GovernanceProvider load(String name, ClassLoader loader) {
        List<GovernanceProvider> found = discover(loader);
        List<String> names = found.stream().map(GovernanceProvider::name).toList();
        if (name == null || name.isBlank()) {
            if (found.size() == 1) {
                return found.get(0);
            }
            throw new IllegalArgumentException(
                    found.isEmpty()
                            ? "no governance provider found on the class path; add an allocator module such as allocator-heap"
                            : "several governance providers found " + names + "; choose one with 'governance.provider'");
        }
        return found.stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "unknown governance provider '"
                                                + name
                                                + "' ('governance.provider'); found: "
                                                + (names.isEmpty() ? "none" : String.join(", ", names))));
    }
}
