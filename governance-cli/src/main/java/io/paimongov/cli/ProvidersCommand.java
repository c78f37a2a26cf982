package io.paimongov.cli;

import io.paimongov.spi.GovernanceProvider;
import io.paimongov.runtime.Providers;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code providers}: the governance providers {@link java.util.ServiceLoader} finds on the CLI's
 * class path, by name, with their implementing class. Exits 0 when at least one is found, 3 when
 * none is (the CLI cannot govern a write then).
 *
 * <p>Picocli creates one instance per execution; not thread-safe.
 */
@Command(
        name = "providers",
        mixinStandardHelpOptions = true,
        description = "Lists the governance providers found on the class path: the names --provider accepts.")
final class ProvidersCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--json", description = "Print {\"providers\": [{\"name\": ..., \"class\": ...}]}.")
    boolean json;

    @Override
    public Integer call() {
        List<GovernanceProvider> found = Providers.discover(GovernanceCli.class.getClassLoader());
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(Map.of("providers", found.stream().map(ProvidersCommand::json).toList())));
        } else {
            String row = "%-" + found.stream().mapToInt(p -> p.name().length()).reduce(4, Math::max) + "s  %s%n";
            out.printf(row, "NAME", "CLASS");
            found.forEach(p -> out.printf(row, p.name(), p.getClass().getName()));
        }
        out.flush();
        if (found.isEmpty()) {
            spec.commandLine().getErr().println("error: no governance provider on the class path");
            return GovernanceCli.EXIT_FAILURE;
        }
        return GovernanceCli.EXIT_OK;
    }

    private static Map<String, Object> json(GovernanceProvider provider) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("name", provider.name());
        entry.put("class", provider.getClass().getName());
        return entry;
    }
}
