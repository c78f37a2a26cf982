package io.paimongov.cli;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Renders a tree of plain values as JSON text, so the CLI needs no JSON library. A value is {@code
 * null}, a {@link Boolean}, an integral {@link Number} ({@code Integer} or {@code Long}), a {@link
 * String}, a {@link List} of values or a {@link Map} from {@code String} to values (rendered in the
 * map's iteration order, so use a {@code LinkedHashMap} for a stable key order).
 *
 * <p>Output is pretty-printed with two-space indentation and no trailing newline. Strings are
 * escaped per RFC 8259: quote, backslash and every control character.
 *
 * <p>Stateless; thread-safe. {@link #write} throws {@link IllegalArgumentException} for any other
 * value type (floating point is left out on purpose: every number the CLI reports is a count).
 */
final class Json {

    private Json() {}

    /** {@code value} as JSON text. */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        value(out, value, 0);
        return out.toString();
    }

    private static void value(StringBuilder out, Object value, int depth) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
            out.append(value);
        } else if (value instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                throw new IllegalArgumentException("JSON has no form for " + d);
            }
            out.append(d);
        } else if (value instanceof String s) {
            string(out, s);
        } else if (value instanceof Map<?, ?> map) {
            object(out, map, depth);
        } else if (value instanceof List<?> list) {
            array(out, list, depth);
        } else {
            throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
        }
    }

    private static void object(StringBuilder out, Map<?, ?> map, int depth) {
        if (map.isEmpty()) {
            out.append("{}");
            return;
        }
        out.append('{');
        Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<?, ?> e = it.next();
            if (!(e.getKey() instanceof String key)) {
                throw new IllegalArgumentException("JSON object keys are strings, not " + e.getKey());
            }
            newline(out, depth + 1);
            string(out, key);
            out.append(": ");
            value(out, e.getValue(), depth + 1);
            out.append(it.hasNext() ? "," : "");
        }
        newline(out, depth);
        out.append('}');
    }

    private static void array(StringBuilder out, List<?> list, int depth) {
        if (list.isEmpty()) {
            out.append("[]");
            return;
        }
        out.append('[');
        for (int i = 0; i < list.size(); i++) {
            newline(out, depth + 1);
            value(out, list.get(i), depth + 1);
            out.append(i < list.size() - 1 ? "," : "");
        }
        newline(out, depth);
        out.append(']');
    }

    private static void newline(StringBuilder out, int depth) {
        out.append('\n').append("  ".repeat(depth));
    }

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
