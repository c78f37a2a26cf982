package io.paimongov.cli;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A value of a query's row as the {@code sql} command prints it: numbers, strings and booleans as
 * they are (JSON numbers, strings, booleans; a NaN or infinite double as its text), null as null,
 * decimals as exact numbers, byte arrays
 * in Base64, arrays and collections as lists, maps as maps (keys as text), anything else (dates,
 * times, timestamps, engine rows) as its text. The same for both engines.
 *
 * <p>Stateless; thread-safe.
 */
final class SqlValues {

    private SqlValues() {}

    static Object plain(Object value) {
        if (value == null || value instanceof Boolean || value instanceof String || value instanceof BigDecimal) {
            return value;
        }
        if (value instanceof Byte || value instanceof Short || value instanceof Integer) {
            return ((Number) value).intValue();
        }
        if (value instanceof Long) {
            return value;
        }
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            return Double.isFinite(d) ? d : Double.toString(d);
        }
        if (value instanceof java.math.BigInteger big) {
            return new BigDecimal(big);
        }
        if (value instanceof byte[] bytes) {
            return Base64.getEncoder().encodeToString(bytes);
        }
        if (value.getClass().isArray()) {
            List<Object> list = new ArrayList<>();
            for (int i = 0; i < Array.getLength(value); i++) {
                list.add(plain(Array.get(value, i)));
            }
            return list;
        }
        if (value instanceof Collection<?> c) {
            List<Object> list = new ArrayList<>();
            c.forEach(v -> list.add(plain(v)));
            return list;
        }
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> map = new LinkedHashMap<>();
            m.forEach((k, v) -> map.put(String.valueOf(k), plain(v)));
            return map;
        }
        return value.toString();
    }
}
