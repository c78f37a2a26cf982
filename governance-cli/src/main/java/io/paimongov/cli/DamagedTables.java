package io.paimongov.cli;

import io.paimongov.runtime.tables.DamagedTableException;
import io.paimongov.runtime.tables.PaimonPaths;
import io.paimongov.runtime.tables.TableCheck;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Explains a failed SQL statement by a damaged table: an engine meets a missing or truncated file
 * deep inside a job and reports it in its own wrapping (Paimon's hint about snapshot expiration,
 * a parser's message quoting the file's bytes). The tables of the warehouse whose names the
 * statement holds are checked ({@link TableCheck}), and the first damage found is the failure.
 *
 * <p>Stateless and thread-safe; never throws (a warehouse that cannot be read explains nothing).
 */
final class DamagedTables {

    private static final Logger LOG = LoggerFactory.getLogger(DamagedTables.class);

    private DamagedTables() {}

    /** The damage of a table of {@code warehouse} that {@code statement} names, if any. */
    static Optional<DamagedTableException> named(Path warehouse, String statement) {
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(PaimonPaths.of(warehouse)))) {
            for (String database : catalog.listDatabases()) {
                for (String name : catalog.listTables(database)) {
                    if (!mentions(statement, name)) {
                        continue;
                    }
                    Table table = catalog.getTable(Identifier.create(database, name));
                    if (table instanceof FileStoreTable fileStore) {
                        try {
                            TableCheck.verify(fileStore);
                        } catch (DamagedTableException damaged) {
                            return Optional.of(damaged);
                        }
                    }
                }
            }
        } catch (Exception cannotTell) {
            LOG.debug("cannot check the tables of {}", warehouse, cannotTell);
        }
        return Optional.empty();
    }

    /** Whether {@code name} stands in {@code statement} as a word (an identifier, maybe quoted). */
    static boolean mentions(String statement, String name) {
        return Pattern.compile("(?<![\\w$])" + Pattern.quote(name) + "(?![\\w$])", Pattern.CASE_INSENSITIVE)
                .matcher(statement).find();
    }
}
