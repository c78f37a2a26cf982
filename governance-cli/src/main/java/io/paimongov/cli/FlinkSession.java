package io.paimongov.cli;

import java.io.IOException;
import java.net.URL;
import java.util.Locale;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.bridge.internal.AbstractStreamTableEnvironmentImpl;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.bridge.java.internal.StreamTableEnvironmentImpl;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.CatalogStoreHolder;
import org.apache.flink.table.catalog.FunctionCatalog;
import org.apache.flink.table.catalog.GenericInMemoryCatalog;
import org.apache.flink.table.delegation.Executor;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.factories.CatalogStoreFactory;
import org.apache.flink.table.factories.PlannerFactoryUtil;
import org.apache.flink.table.factories.TableFactoryUtil;
import org.apache.flink.table.module.ModuleManager;
import org.apache.flink.table.resource.ResourceManager;
import org.apache.flink.util.FlinkUserCodeClassLoaders;
import org.apache.flink.util.MutableURLClassLoader;

/**
 * One Flink SQL session on an embedded cluster, kept across runtime modes as Flink's SQL gateway
 * keeps one ({@code SessionContext}'s session state, {@code OperationExecutor}'s table environment
 * per mode): the catalogs (with their temporary tables and views, the current catalog and
 * database), the functions, the modules and the resources live here once, and each runtime mode
 * gets a table environment of its own over them. So {@code SET 'execution.runtime-mode'} changes
 * how the next statements plan and run, and forgets nothing the statements before it made.
 *
 * <p>Why not {@code StreamTableEnvironment.create} again per mode: that makes a new catalog manager,
 * and with it loses every temporary object, every catalog but the ones registered again, and
 * {@code default_catalog}'s content.
 *
 * <p>Not thread-safe: the {@code sql} command's thread only. {@link #close} closes the catalogs.
 */
final class FlinkSession implements AutoCloseable {

    private final Configuration cluster;
    /** {@code SET 'key' = 'value'} of the session, the runtime mode included; read by the catalogs. */
    private final Configuration settings = new Configuration();
    private final MutableURLClassLoader classLoader;
    private final ResourceManager resources;
    private final ModuleManager modules = new ModuleManager();
    private final CatalogManager catalogs;
    private final FunctionCatalog functions;
    private RuntimeExecutionMode mode = RuntimeExecutionMode.BATCH;
    private StreamTableEnvironment tables;

    /** A session in batch mode on a local environment configured by {@code cluster}. */
    FlinkSession(Configuration cluster) {
        this.cluster = cluster;
        settings.set(ExecutionOptions.RUNTIME_MODE, mode);
        EnvironmentSettings defaults = EnvironmentSettings.newInstance().build();
        this.classLoader = FlinkUserCodeClassLoaders.create(new URL[0], defaults.getUserClassLoader(), settings);
        this.resources = new ResourceManager(settings, classLoader);
        CatalogStoreFactory storeFactory = TableFactoryUtil.findAndCreateCatalogStoreFactory(settings, classLoader);
        storeFactory.open(TableFactoryUtil.buildCatalogStoreFactoryContext(settings, classLoader));
        this.catalogs = CatalogManager.newBuilder()
                .classLoader(classLoader)
                .config(settings)
                .defaultCatalog(defaults.getBuiltInCatalogName(),
                        new GenericInMemoryCatalog(defaults.getBuiltInCatalogName(), defaults.getBuiltInDatabaseName()))
                .executionConfig(new ExecutionConfig(settings))
                .catalogModificationListeners(TableFactoryUtil.findCatalogModificationListenerList(settings, classLoader))
                .catalogStoreHolder(CatalogStoreHolder.newBuilder()
                        .classloader(classLoader)
                        .config(settings)
                        .catalogStore(storeFactory.createCatalogStore())
                        .factory(storeFactory)
                        .build())
                .build();
        this.functions = new FunctionCatalog(settings, resources, catalogs, modules);
        this.tables = environment(mode);
    }

    /** The table environment of the current mode; a new one after a change of mode. */
    StreamTableEnvironment tables() {
        return tables;
    }

    boolean streaming() {
        return mode == RuntimeExecutionMode.STREAMING;
    }

    /**
     * {@code SET 'key' = 'value'}: the runtime mode ({@code streaming} or {@code batch}) switches
     * to a table environment of that mode over this session; any other key goes into the table
     * configuration, now and for later modes.
     *
     * @throws IllegalArgumentException naming {@code execution.runtime-mode} and its values for a
     *     mode that is neither; the session is unchanged
     */
    void set(String key, String value) {
        if (key.equals(ExecutionOptions.RUNTIME_MODE.key())) {
            RuntimeExecutionMode asked = runtimeMode(value);
            if (asked != mode) {
                StreamTableEnvironment next = environment(asked);
                settings.set(ExecutionOptions.RUNTIME_MODE, asked);
                mode = asked;
                tables = next;
            }
            return;
        }
        settings.setString(key, value);
        tables.getConfig().getConfiguration().setString(key, value);
    }

    /** The Table API's modes: Flink's third, {@code automatic}, is not one a table environment runs in. */
    private static RuntimeExecutionMode runtimeMode(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "streaming" -> RuntimeExecutionMode.STREAMING;
            case "batch" -> RuntimeExecutionMode.BATCH;
            default -> throw new IllegalArgumentException("'" + ExecutionOptions.RUNTIME_MODE.key()
                    + "' must be 'streaming' or 'batch' but was '" + value + "'");
        };
    }

    /**
     * A table environment in {@code asked} mode over this session's catalogs, functions, modules and
     * resources, on a local environment of its own, as {@code StreamTableEnvironmentImpl.create}
     * builds one but without making the session state anew.
     */
    private StreamTableEnvironment environment(RuntimeExecutionMode asked) {
        Configuration session = new Configuration(settings);
        session.set(ExecutionOptions.RUNTIME_MODE, asked);
        Configuration config = new Configuration(cluster);
        config.addAll(session);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(config);
        EnvironmentSettings environment = EnvironmentSettings.newInstance().withConfiguration(session).build();
        Executor executor = AbstractStreamTableEnvironmentImpl.lookupExecutor(classLoader, env);
        TableConfig tableConfig = TableConfig.getDefault();
        tableConfig.setRootConfiguration(executor.getConfiguration());
        tableConfig.addConfiguration(environment.getConfiguration());
        Planner planner = PlannerFactoryUtil.createPlanner(executor, tableConfig, classLoader, modules, catalogs, functions);
        return new StreamTableEnvironmentImpl(catalogs, modules, resources, functions, tableConfig, env, planner, executor,
                asked == RuntimeExecutionMode.STREAMING);
    }

    /** Closes the catalogs (and the catalog store) and the resources; once. */
    @Override
    public void close() {
        try {
            catalogs.close();
        } finally {
            try {
                resources.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
