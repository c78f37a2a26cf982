package io.paimongov.cli;

import io.paimongov.runtime.config.GovernanceOptions;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the demo passes to an engine's governed catalog: the demo's governance options (budget, page
 * size, spill byte limit, orphan margin, compaction settings) as catalog options, without the
 * provider (the engine's own) and the spill directories (the engine's temp dirs, set apart).
 *
 * <p>Stateless.
 */
final class DemoEngines {

    private DemoEngines() {}

    /** Whether provider {@code name} runs the demo as an engine's SQL job (flink, spark) rather than one write here. */
    static boolean isEngine(String name) {
        return AddOn.named(name).isPresent();
    }

    /** The options as {@code key -> value}. */
    static Map<String, String> catalogOptions(DemoSettings s) {
        Map<String, String> options = new TreeMap<>(s.options().asMap());
        options.remove(GovernanceOptions.PROVIDER);
        options.remove(GovernanceOptions.SPILL_DIRS);
        options.put(GovernanceOptions.MEMORY_BUDGET, Long.toString(s.options().budgetBytes()));
        options.put(GovernanceOptions.PAGE_SIZE, Integer.toString(s.options().pageSize()));
        return options;
    }

    /** The options as Flink SQL's {@code , 'key' = 'value'} list. */
    static String governanceOptions(DemoSettings s) {
        StringBuilder with = new StringBuilder();
        catalogOptions(s).forEach((k, v) -> with.append(", ").append(SqlEngine.literal(k)).append(" = ").append(SqlEngine.literal(v)));
        return with.toString();
    }
}
