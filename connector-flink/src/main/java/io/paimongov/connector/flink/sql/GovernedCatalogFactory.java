package io.paimongov.connector.flink.sql;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.flink.FlinkCatalogOptions;
import org.apache.paimon.flink.FlinkFileIOLoader;
import org.apache.paimon.options.Options;

/**
 * Catalog type {@value #IDENTIFIER}: Paimon's Flink catalog whose tables are written through
 * governed writes.
 *
 * <pre>{@code
 * CREATE CATALOG g WITH ('type' = 'paimon-governed', 'warehouse' = 'file:///tmp/wh',
 *                        'governance.memory.budget' = '64m');
 * }</pre>
 *
 * <p>Every option Paimon's catalog takes ({@code warehouse}, {@code metastore}, {@code
 * default-database}, ...) means what it means there; {@code governance.*} options are the defaults
 * of every governed write through the catalog (a table's own options and a statement's {@code /*+
 * OPTIONS(...) *}{@code /} hint win over them). An unknown or bad {@code governance.*} key fails the
 * {@code CREATE CATALOG}, naming the key.
 *
 * <p>Found by Flink through {@code META-INF/services/org.apache.flink.table.factories.Factory};
 * stateless, thread-safe.
 */
public final class GovernedCatalogFactory implements CatalogFactory {

    /** The catalog type and table connector name. */
    public static final String IDENTIFIER = "paimon-governed";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public GovernedFlinkCatalog createCatalog(Context context) {
        Map<String, String> paimon = new HashMap<>();
        Map<String, String> governance = new HashMap<>();
        context.getOptions().forEach((k, v) -> (k.startsWith("governance.") ? governance : paimon).put(k, v));
        GovernanceSettings defaults = GovernanceSettings.catalogDefaults(governance);
        CatalogContext paimonContext = CatalogContext.create(Options.fromMap(paimon), new FlinkFileIOLoader());
        return new GovernedFlinkCatalog(
                org.apache.paimon.catalog.CatalogFactory.createCatalog(paimonContext, context.getClassLoader()),
                context.getName(),
                paimonContext.options().get(FlinkCatalogOptions.DEFAULT_DATABASE),
                paimonContext.options(),
                defaults);
    }
}
