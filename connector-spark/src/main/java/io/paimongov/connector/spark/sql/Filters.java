package io.paimongov.connector.spark.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringStartsWith;

/**
 * Spark's pushed-down filters as Paimon predicates, for pruning only: Paimon skips partitions,
 * buckets and files (and, for some formats, rows) that cannot match, and Spark evaluates every
 * filter again on the rows it gets. So a filter is converted only when the predicate keeps every
 * row the filter keeps: comparisons, {@code IN}, null checks and {@code LIKE 'x%'} on top-level
 * columns of boolean, integral, floating-point, decimal, {@code STRING}/{@code VARCHAR} and {@code
 * DATE} type, and {@code AND}/{@code OR} of those. Timestamps and {@code CHAR} (whose padding Spark
 * applies on read) are left to Spark.
 *
 * <p>Stateless apart from the table's row type; thread-safe.
 */
final class Filters {

    private final RowType table;
    private final PredicateBuilder builder;

    Filters(RowType table) {
        this.table = table;
        this.builder = new PredicateBuilder(table);
    }

    /** The predicate of {@code filter}, when it can be converted as the class says. */
    Optional<Predicate> convert(Filter filter) {
        if (filter instanceof And and) {
            Optional<Predicate> left = convert(and.left());
            Optional<Predicate> right = convert(and.right());
            if (left.isPresent() && right.isPresent()) {
                return Optional.of(PredicateBuilder.and(left.get(), right.get()));
            }
            // One side alone still keeps every row the conjunction keeps.
            return left.isPresent() ? left : right;
        }
        if (filter instanceof Or or) {
            Optional<Predicate> left = convert(or.left());
            Optional<Predicate> right = convert(or.right());
            return left.isPresent() && right.isPresent() ? Optional.of(PredicateBuilder.or(left.get(), right.get())) : Optional.empty();
        }
        if (filter instanceof IsNull f) {
            return field(f.attribute()).map(builder::isNull);
        }
        if (filter instanceof IsNotNull f) {
            return field(f.attribute()).map(builder::isNotNull);
        }
        if (filter instanceof EqualTo f) {
            return leaf(f.attribute(), f.value(), builder::equal);
        }
        if (filter instanceof GreaterThan f) {
            return leaf(f.attribute(), f.value(), builder::greaterThan);
        }
        if (filter instanceof GreaterThanOrEqual f) {
            return leaf(f.attribute(), f.value(), builder::greaterOrEqual);
        }
        if (filter instanceof LessThan f) {
            return leaf(f.attribute(), f.value(), builder::lessThan);
        }
        if (filter instanceof LessThanOrEqual f) {
            return leaf(f.attribute(), f.value(), builder::lessOrEqual);
        }
        if (filter instanceof StringStartsWith f) {
            return leaf(f.attribute(), f.value(), builder::startsWith);
        }
        if (filter instanceof In f) {
            Optional<Integer> index = field(f.attribute());
            if (index.isEmpty()) {
                return Optional.empty();
            }
            List<Object> values = new ArrayList<>();
            for (Object value : f.values()) {
                Optional<Object> literal = literal(index.get(), value);
                if (literal.isEmpty()) {
                    return Optional.empty();
                }
                values.add(literal.get());
            }
            return Optional.of(builder.in(index.get(), values));
        }
        return Optional.empty();
    }

    @FunctionalInterface
    private interface Leaf {
        Predicate make(int index, Object literal);
    }

    private Optional<Predicate> leaf(String attribute, Object value, Leaf leaf) {
        return field(attribute).flatMap(index -> literal(index, value).map(literal -> leaf.make(index, literal)));
    }

    /** The index of a top-level column of a type the class converts. */
    private Optional<Integer> field(String attribute) {
        int index = table.getFieldNames().indexOf(attribute);
        if (index < 0) {
            return Optional.empty();
        }
        return switch (table.getTypeAt(index).getTypeRoot()) {
            case BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE, DECIMAL, VARCHAR, DATE -> Optional.of(index);
            default -> Optional.empty();
        };
    }

    /** A non-null literal of the column's type; null literals are left to Spark (they match nothing). */
    private Optional<Object> literal(int index, Object value) {
        if (value == null) {
            return Optional.empty();
        }
        DataType type = table.getTypeAt(index);
        try {
            return Optional.ofNullable(PredicateBuilder.convertJavaObject(type, value));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
