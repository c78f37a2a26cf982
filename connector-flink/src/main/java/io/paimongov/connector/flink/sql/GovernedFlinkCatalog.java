package io.paimongov.connector.flink.sql;

import java.util.List;
import java.util.Optional;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.factories.Factory;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.flink.FlinkCatalog;
import org.apache.paimon.options.Options;

/**
 * Paimon's Flink catalog ({@link FlinkCatalog}: databases, tables, DDL as Paimon takes it, reads)
 * whose table factory writes through governed writes ({@link GovernedTableFactory}). A {@code
 * CREATE TABLE} or {@code ALTER TABLE ... SET} with a bad {@code governance.*} option fails before
 * the table changes, naming the key.
 *
 * <p>Thread-safety as Paimon's catalog: Flink calls it from the planning thread.
 */
public final class GovernedFlinkCatalog extends FlinkCatalog {

    private final GovernanceSettings defaults;

    GovernedFlinkCatalog(Catalog catalog, String name, String defaultDatabase, Options options, GovernanceSettings defaults) {
        super(catalog, name, defaultDatabase, options);
        this.defaults = defaults;
    }

    @Override
    public Optional<Factory> getFactory() {
        return Optional.of(new GovernedTableFactory(this, defaults));
    }

    @Override
    public void createTable(ObjectPath tablePath, CatalogBaseTable table, boolean ignoreIfExists)
            throws TableAlreadyExistException, DatabaseNotExistException, CatalogException {
        defaults.forTable(table.getOptions());
        super.createTable(tablePath, table, ignoreIfExists);
    }

    @Override
    public void alterTable(ObjectPath tablePath, CatalogBaseTable newTable, boolean ignoreIfNotExists)
            throws TableNotExistException, CatalogException {
        defaults.forTable(newTable.getOptions());
        super.alterTable(tablePath, newTable, ignoreIfNotExists);
    }

    @Override
    public void alterTable(ObjectPath tablePath, CatalogBaseTable newTable, List<TableChange> changes, boolean ignoreIfNotExists)
            throws TableNotExistException, CatalogException {
        defaults.forTable(newTable.getOptions());
        super.alterTable(tablePath, newTable, changes, ignoreIfNotExists);
    }
}
