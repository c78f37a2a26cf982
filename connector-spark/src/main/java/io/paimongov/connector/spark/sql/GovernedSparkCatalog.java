package io.paimongov.connector.spark.sql;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.PropertyChange;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.SchemaChange;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchFunctionException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Spark catalog of Paimon tables whose writes are governed: every write task takes its memory
 * from Spark's task memory manager through the {@code spark} provider (one budget, cooperative
 * spill, scoped spill files, task kill, task metrics), and rows are routed to write tasks with
 * Paimon's own bucket functions and assigners, so that tables written here and by Paimon's
 * connectors are interchangeable.
 *
 * <pre>
 * spark.sql.catalog.g                            = io.paimongov.connector.spark.sql.GovernedSparkCatalog
 * spark.sql.catalog.g.warehouse                  = hdfs:///paimon        (any Paimon catalog option)
 * spark.sql.catalog.g.governance.memory.budget   = 64m                   (defaults for every write)
 * </pre>
 *
 * <p>Namespaces are Paimon databases (one level). Tables: {@code CREATE TABLE} as Paimon's own Spark
 * catalog takes it ({@code TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '4', ...)}, see {@code
 * docs/spark.md}), {@code ALTER TABLE} (properties, comment, columns), {@code DROP}, {@code RENAME};
 * reads and writes through Spark's DataSource V2 (batch {@code INSERT INTO}/{@code INSERT
 * OVERWRITE}/{@code df.writeTo}, and {@code writeStream.toTable} exactly once). The catalog's only
 * function, {@code governed_write_channel}, is the write distribution's.
 *
 * <p>Options: every {@code spark.sql.catalog.<name>.*} key except {@code governance.*} is a Paimon
 * catalog option ({@code warehouse}, {@code metastore}, ...; {@code default-database}, default
 * {@code default}, names the namespace Spark starts in and is created when missing). {@code
 * governance.*} keys are defaults of every write; a table's {@code governance.*} properties override
 * them and a write's options override both.
 *
 * <p><b>Thread-safety:</b> Spark makes one instance per session and name and may call it from
 * several threads; the Paimon catalog underneath is thread-safe, and this class holds nothing else
 * that changes after {@link #initialize}. <b>May throw:</b> Spark's catalog exceptions for missing
 * or existing objects; {@link IllegalArgumentException} naming the key, column or property for bad
 * input.
 */
public final class GovernedSparkCatalog implements TableCatalog, SupportsNamespaces, FunctionCatalog {

    /** The Paimon option naming the namespace Spark starts in. */
    public static final String DEFAULT_DATABASE = "default-database";

    private String name;
    private Catalog catalog;
    private Map<String, String> governanceDefaults;
    private String defaultDatabase;

    /**
     * Opens the Paimon catalog with the catalog's options and checks the {@code governance.*}
     * defaults.
     *
     * @throws IllegalArgumentException naming a bad {@code governance.*} key, or from Paimon for a
     *     bad catalog option
     */
    @Override
    public void initialize(String name, CaseInsensitiveStringMap options) {
        this.name = name;
        Map<String, String> all = options.asCaseSensitiveMap();
        Map<String, String> governance = GovernanceSettings.governanceKeys(all);
        try {
            GovernanceSettings.check(governance);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("catalog '" + name + "': " + e.getMessage(), e);
        }
        Map<String, String> paimon = new HashMap<>(all);
        governance.keySet().forEach(paimon::remove);
        this.governanceDefaults = Map.copyOf(governance);
        this.defaultDatabase = paimon.getOrDefault(DEFAULT_DATABASE, Catalog.DEFAULT_DATABASE);
        this.catalog = CatalogFactory.createCatalog(
                CatalogContext.create(Options.fromMap(paimon), SparkSession.active().sessionState().newHadoopConf()));
        try {
            catalog.createDatabase(defaultDatabase, true);
        } catch (Catalog.DatabaseAlreadyExistException e) {
            throw new IllegalStateException("cannot happen: createDatabase with ignoreIfExists", e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String[] defaultNamespace() {
        return new String[] {defaultDatabase};
    }

    // ------------------------------------------------------------------ namespaces = databases

    @Override
    public String[][] listNamespaces() {
        return catalog.listDatabases().stream().map(db -> new String[] {db}).toArray(String[][]::new);
    }

    @Override
    public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
        if (namespace.length == 0) {
            return listNamespaces();
        }
        loadNamespaceMetadata(namespace);
        return new String[0][];
    }

    @Override
    public Map<String, String> loadNamespaceMetadata(String[] namespace) throws NoSuchNamespaceException {
        try {
            return catalog.getDatabase(database(namespace)).options();
        } catch (Catalog.DatabaseNotExistException e) {
            throw new NoSuchNamespaceException(namespace);
        }
    }

    @Override
    public void createNamespace(String[] namespace, Map<String, String> metadata) throws NamespaceAlreadyExistsException {
        try {
            catalog.createDatabase(database(namespace), false, metadata);
        } catch (Catalog.DatabaseAlreadyExistException e) {
            throw new NamespaceAlreadyExistsException(namespace);
        }
    }

    @Override
    public void alterNamespace(String[] namespace, NamespaceChange... changes) throws NoSuchNamespaceException {
        List<PropertyChange> paimon = new ArrayList<>();
        for (NamespaceChange change : changes) {
            if (change instanceof NamespaceChange.SetProperty set) {
                paimon.add(PropertyChange.setProperty(set.property(), set.value()));
            } else if (change instanceof NamespaceChange.RemoveProperty remove) {
                paimon.add(PropertyChange.removeProperty(remove.property()));
            }
        }
        try {
            catalog.alterDatabase(database(namespace), paimon, false);
        } catch (Catalog.DatabaseNotExistException e) {
            throw new NoSuchNamespaceException(namespace);
        }
    }

    @Override
    public boolean dropNamespace(String[] namespace, boolean cascade) throws NoSuchNamespaceException, NonEmptyNamespaceException {
        try {
            catalog.dropDatabase(database(namespace), false, cascade);
            return true;
        } catch (Catalog.DatabaseNotExistException e) {
            throw new NoSuchNamespaceException(namespace);
        } catch (Catalog.DatabaseNotEmptyException e) {
            throw new NonEmptyNamespaceException(namespace);
        }
    }

    // ------------------------------------------------------------------ tables

    @Override
    public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
        try {
            return catalog.listTables(database(namespace)).stream().map(t -> Identifier.of(namespace, t)).toArray(Identifier[]::new);
        } catch (Catalog.DatabaseNotExistException e) {
            throw new NoSuchNamespaceException(namespace);
        }
    }

    @Override
    public Table loadTable(Identifier ident) throws NoSuchTableException {
        try {
            return new GovernedTable(catalog.getTable(paimon(ident)), governanceDefaults);
        } catch (Catalog.TableNotExistException e) {
            throw new NoSuchTableException(ident);
        }
    }

    @Override
    public void invalidateTable(Identifier ident) {
        catalog.invalidateTable(paimon(ident));
    }

    @Override
    public Table createTable(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
            throws TableAlreadyExistsException, NoSuchNamespaceException {
        return create(ident, CatalogV2Util.v2ColumnsToStructType(columns), partitions, properties);
    }

    /**
     * The same table from a schema: what Spark 3.5, where this overload is the one a catalog must
     * have, may call (Spark 4 calls the one with columns above). One jar serves both lines.
     */
    @Override
    @SuppressWarnings("deprecation")
    public Table createTable(Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
            throws TableAlreadyExistsException, NoSuchNamespaceException {
        return create(ident, schema, partitions, properties);
    }

    private Table create(Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
            throws TableAlreadyExistsException, NoSuchNamespaceException {
        try {
            catalog.createTable(paimon(ident), TableDefinitions.schema(schema, partitions, properties), false);
        } catch (Catalog.TableAlreadyExistException e) {
            throw new TableAlreadyExistsException(ident);
        } catch (Catalog.DatabaseNotExistException e) {
            throw new NoSuchNamespaceException(ident.namespace());
        }
        try {
            return loadTable(ident);
        } catch (NoSuchTableException e) {
            throw new IllegalStateException("table " + ident + " was created and is gone", e);
        }
    }

    @Override
    public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
        List<SchemaChange> paimon = Arrays.stream(changes).map(TableDefinitions::change).toList();
        try {
            catalog.alterTable(paimon(ident), paimon, false);
        } catch (Catalog.TableNotExistException e) {
            throw new NoSuchTableException(ident);
        } catch (Catalog.ColumnAlreadyExistException | Catalog.ColumnNotExistException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return loadTable(ident);
    }

    @Override
    public boolean dropTable(Identifier ident) {
        try {
            catalog.dropTable(paimon(ident), false);
            return true;
        } catch (Catalog.TableNotExistException e) {
            return false;
        }
    }

    /**
     * Renames within the catalog. Spark passes the new name as written: {@code RENAME TO t2} keeps
     * the database, {@code RENAME TO db.t2} names it, and {@code RENAME TO g.db.t2} (this catalog's
     * name first) is taken as {@code db.t2}.
     */
    @Override
    public void renameTable(Identifier from, Identifier to) throws NoSuchTableException, TableAlreadyExistsException {
        String[] namespace = to.namespace();
        if (namespace.length == 0) {
            namespace = from.namespace();
        } else if (namespace.length == 2 && namespace[0].equals(name)) {
            namespace = new String[] {namespace[1]};
        }
        try {
            catalog.renameTable(paimon(from), paimon(Identifier.of(namespace, to.name())), false);
        } catch (Catalog.TableNotExistException e) {
            throw new NoSuchTableException(from);
        } catch (Catalog.TableAlreadyExistException e) {
            throw new TableAlreadyExistsException(to);
        }
    }

    // ------------------------------------------------------------------ functions

    @Override
    public Identifier[] listFunctions(String[] namespace) {
        return namespace.length == 0 ? new Identifier[] {Identifier.of(namespace, ChannelFunction.NAME)} : new Identifier[0];
    }

    /** The write distribution's function, asked for without a namespace; nothing else. */
    @Override
    public UnboundFunction loadFunction(Identifier ident) throws NoSuchFunctionException {
        if (ident.namespace().length == 0 && ident.name().equalsIgnoreCase(ChannelFunction.NAME)) {
            return new ChannelFunction();
        }
        throw new NoSuchFunctionException(ident);
    }

    // ------------------------------------------------------------------

    private static String database(String[] namespace) {
        if (namespace.length != 1) {
            throw new IllegalArgumentException("a namespace of the governed catalog is one database name; got "
                    + String.join(".", namespace));
        }
        return namespace[0];
    }

    private static org.apache.paimon.catalog.Identifier paimon(Identifier ident) {
        return org.apache.paimon.catalog.Identifier.create(database(ident.namespace()), ident.name());
    }
}
