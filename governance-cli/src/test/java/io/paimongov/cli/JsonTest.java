package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void doublesAreNumbersAndNonFiniteOnesAreRefused() {
        org.assertj.core.api.Assertions.assertThat(Json.write(java.util.Map.of("ratio", 1.75))).contains("\"ratio\": 1.75");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Json.write(java.util.Map.of("x", Double.NaN)))
                .hasMessage("JSON has no form for NaN");
    }

    @Test
    void nestedValuesAndAwkwardStringsParseBackUnchanged() throws Exception {
        String awkward = "quote \" backslash \\ newline \n tab \t bell \u0007 nul \u0000 é ✓ /";
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("text", awkward);
        value.put("long", Long.MAX_VALUE);
        value.put("int", -1);
        value.put("yes", true);
        value.put("none", null);
        value.put("list", Arrays.asList(1, "two", null, List.of(), Map.of()));

        JsonNode parsed = new ObjectMapper().readTree(Json.write(value));

        assertThat(parsed.get("text").asText()).isEqualTo(awkward);
        assertThat(parsed.get("long").asLong()).isEqualTo(Long.MAX_VALUE);
        assertThat(parsed.get("int").asInt()).isEqualTo(-1);
        assertThat(parsed.get("yes").asBoolean()).isTrue();
        assertThat(parsed.get("none").isNull()).isTrue();
        assertThat(parsed.get("list").toString()).isEqualTo("[1,\"two\",null,[],{}]");
        List<String> names = new ArrayList<>();
        parsed.fieldNames().forEachRemaining(names::add);
        assertThat(names).containsExactly("text", "long", "int", "yes", "none", "list");
    }

    @Test
    void valuesWithoutAJsonFormAreRefused() {
        assertThatThrownBy(() -> Json.write(Map.of("when", java.time.Instant.EPOCH)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.time.Instant");
    }
}
