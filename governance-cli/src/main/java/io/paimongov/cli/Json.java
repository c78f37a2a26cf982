package io.paimongov.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * Renders a tree of plain values as the CLI's {@code --json} text, through Jackson. A value is
 * {@code null}, a {@link Boolean}, an {@link Integer}, a {@link Long}, a finite {@link Double}, a
 * {@link String}, a {@link List} of values or a {@link Map} from {@code String} to values (rendered
 * in the map's iteration order, so use a {@code LinkedHashMap} for a stable key order: docs/cli.md
 * documents the keys in order).
 *
 * <p>The tree is first turned into Jackson's nodes here, so only these types get a JSON form: any
 * other (a {@code Float}, an {@code Instant}, a record) is refused instead of being serialized by
 * reflection, and a NaN or infinite double is refused instead of becoming a string. Output is
 * pretty-printed with two-space indentation, {@code "key": value}, one array element per line,
 * {@code {}} and {@code []} when empty, and no trailing newline ({@link #write}), or on one line
 * ({@link #line}). Decimals ({@code BigDecimal}) are exact JSON numbers.
 *
 * <p>Stateless; thread-safe. {@link #write} throws {@link IllegalArgumentException} for a value
 * without a JSON form.
 */
final class Json {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectWriter WRITER = new ObjectMapper().writer(printer());
    private static final ObjectWriter LINE = new ObjectMapper().writer();

    private Json() {}

    /** {@code value} as JSON text. */
    static String write(Object value) {
        return write(WRITER, value);
    }

    /** {@code value} as JSON text on one line (JSON Lines: one object per line). */
    static String line(Object value) {
        return write(LINE, value);
    }

    private static String write(ObjectWriter writer, Object value) {
        try {
            return writer.writeValueAsString(node(value));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("Jackson could not write a tree of its own nodes", e);
        }
    }

    private static DefaultPrettyPrinter printer() {
        DefaultIndenter lines = new DefaultIndenter("  ", "\n");
        return new DefaultPrettyPrinter(Separators.createDefaultInstance()
                        .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                        .withObjectEmptySeparator("")
                        .withArrayEmptySeparator(""))
                .withObjectIndenter(lines)
                .withArrayIndenter(lines);
    }

    private static JsonNode node(Object value) {
        if (value == null) {
            return NODES.nullNode();
        } else if (value instanceof Boolean b) {
            return NODES.booleanNode(b);
        } else if (value instanceof Integer i) {
            return NODES.numberNode(i);
        } else if (value instanceof Long l) {
            return NODES.numberNode(l);
        } else if (value instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                throw new IllegalArgumentException("JSON has no form for " + d);
            }
            return NODES.numberNode(d);
        } else if (value instanceof java.math.BigDecimal d) {
            return NODES.numberNode(d);
        } else if (value instanceof String s) {
            return NODES.textNode(s);
        } else if (value instanceof Map<?, ?> map) {
            ObjectNode object = NODES.objectNode();
            map.forEach((k, v) -> {
                if (!(k instanceof String key)) {
                    throw new IllegalArgumentException("JSON object keys are strings, not " + k);
                }
                object.set(key, node(v));
            });
            return object;
        } else if (value instanceof List<?> list) {
            ArrayNode array = NODES.arrayNode(list.size());
            list.forEach(v -> array.add(node(v)));
            return array;
        }
        throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
    }
}
