package io.paimongov.connector.flink.sql;

import io.paimongov.flink.FlinkGovernanceProvider;
import io.paimongov.runtime.config.GovernanceOptions;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code governance.*} options of a governed write through SQL, from three places, the later
 * winning: the catalog's options ({@code CREATE CATALOG ... WITH}), the table's options ({@code
 * CREATE TABLE ... WITH}, {@code ALTER TABLE ... SET}) and the statement's dynamic options ({@code
 * /*+ OPTIONS(...) *}{@code /}), which Flink merges into the table's. Each set is validated where it
 * is given, for provider {@code flink} ({@link GovernanceOptions#forProvider}): an unknown key, a
 * bad value or another provider fails naming the key.
 *
 * <p>Immutable; thread-safe; serializable with the job.
 */
final class GovernanceSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    private final HashMap<String, String> catalog;

    private GovernanceSettings(Map<String, String> catalog) {
        this.catalog = new HashMap<>(catalog);
    }

    /**
     * The catalog's defaults.
     *
     * @throws IllegalArgumentException naming a bad key
     */
    static GovernanceSettings catalogDefaults(Map<String, String> catalogOptions) {
        return new GovernanceSettings(validate(catalogOptions).asMap());
    }

    /** No catalog: a table declared with {@code 'connector' = 'paimon-governed'}. */
    static GovernanceSettings none() {
        return new GovernanceSettings(Map.of());
    }

    /**
     * The options of a write of a table with {@code tableOptions} (its own and the statement's,
     * merged): the catalog's defaults overridden by the table's {@code governance.*} keys.
     *
     * @throws IllegalArgumentException naming a bad key
     */
    Map<String, String> forTable(Map<String, String> tableOptions) {
        Map<String, String> merged = new HashMap<>(catalog);
        merged.putAll(validate(tableOptions).asMap());
        return validate(merged).asMap();
    }

    private static GovernanceOptions validate(Map<String, String> options) {
        GovernanceOptions governance = GovernanceOptions.forProvider(FlinkGovernanceProvider.NAME, options);
        FlinkGovernanceProvider.managedMemoryWeight(governance.providerOptions());
        return governance;
    }
}
