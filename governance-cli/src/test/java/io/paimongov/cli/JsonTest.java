package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * The {@code --json} text: its layout (written out by hand below), its number forms, strings that
 * read back unchanged through another JSON reader (Paimon's shaded Jackson), and the values it
 * refuses.
 */
class JsonTest {

    @Test
    void keysKeepTheirOrderAndTheLayoutIsTwoSpacesOneValuePerLine() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("ok", true);
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("provider", "heap");
        value.put("rows", 20000);
        value.put("bytes", 1L << 40);
        value.put("ratio", 1.75);
        value.put("mismatch", null);
        value.put("reported", Map.of());
        value.put("rules", List.of(1, "two", List.of(), inner));

        assertThat(Json.write(value)).isEqualTo("""
                {
                  "provider": "heap",
                  "rows": 20000,
                  "bytes": 1099511627776,
                  "ratio": 1.75,
                  "mismatch": null,
                  "reported": {},
                  "rules": [
                    1,
                    "two",
                    [],
                    {
                      "ok": true
                    }
                  ]
                }""");
        assertThat(Json.write(List.of())).isEqualTo("[]");
    }

    @Test
    void integersStayIntegersAndDoublesAreNumbersAsJavaPrintsThem() {
        assertThat(Json.write(Map.of("n", 2))).isEqualTo("{\n  \"n\": 2\n}");
        assertThat(Json.write(Map.of("x", 2.0))).isEqualTo("{\n  \"x\": 2.0\n}");
        assertThat(Json.write(Map.of("x", -0.25))).isEqualTo("{\n  \"x\": -0.25\n}");
        assertThat(Json.write(Map.of("x", 1.0e-5))).isEqualTo("{\n  \"x\": 1.0E-5\n}");
        assertThat(Json.write(Map.of("x", Long.MIN_VALUE))).isEqualTo("{\n  \"x\": -9223372036854775808\n}");
    }

    @Test
    void nonFiniteDoublesAreRefused() {
        assertThatThrownBy(() -> Json.write(Map.of("x", Double.NaN))).hasMessage("JSON has no form for NaN");
        assertThatThrownBy(() -> Json.write(List.of(Double.NEGATIVE_INFINITY)))
                .hasMessage("JSON has no form for -Infinity");
    }

    @Test
    void nestedValuesAndAwkwardStringsParseBackUnchanged() throws Exception {
        String awkward = "quote \" backslash \\ newline \n tab \t bell \u0007 nul \u0000 form feed \f é ✓ / \u2028";
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("text", awkward);
        value.put(awkward, "as a key");
        value.put("long", Long.MAX_VALUE);
        value.put("int", -1);
        value.put("yes", true);
        value.put("none", null);
        value.put("list", Arrays.asList(1, "two", null, List.of(), Map.of()));

        JsonNode parsed = new ObjectMapper().readTree(Json.write(value));

        assertThat(parsed.get("text").asText()).isEqualTo(awkward);
        assertThat(parsed.get(awkward).asText()).isEqualTo("as a key");
        assertThat(parsed.get("long").asLong()).isEqualTo(Long.MAX_VALUE);
        assertThat(parsed.get("int").asInt()).isEqualTo(-1);
        assertThat(parsed.get("yes").asBoolean()).isTrue();
        assertThat(parsed.get("none").isNull()).isTrue();
        assertThat(parsed.get("list").toString()).isEqualTo("[1,\"two\",null,[],{}]");
        List<String> names = new ArrayList<>();
        parsed.fieldNames().forEachRemaining(names::add);
        assertThat(names).containsExactly("text", awkward, "long", "int", "yes", "none", "list");
    }

    @Test
    void valuesWithoutAJsonFormAreRefusedRatherThanSerializedByReflection() {
        assertThatThrownBy(() -> Json.write(Map.of("when", Instant.EPOCH)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no JSON form for java.time.Instant");
        assertThatThrownBy(() -> Json.write(List.of(1.5f)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no JSON form for java.lang.Float");
        Map<Object, Object> numberKey = new HashMap<>();
        numberKey.put(7, "seven");
        assertThatThrownBy(() -> Json.write(numberKey))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JSON object keys are strings, not 7");
    }
}
