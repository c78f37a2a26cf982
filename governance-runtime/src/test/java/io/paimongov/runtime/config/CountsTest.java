package io.paimongov.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CountsTest {

    @ParameterizedTest
    @ValueSource(strings = {"1", " 7 ", "2147483647"})
    void takesWholeNumbersAboveZero(String text) {
        assertThat(Counts.positive("k", text)).isEqualTo(Integer.parseInt(text.trim()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-3", "1.5", "", "two", "2147483648"})
    void refusesTheRestNamingTheKeyAndTheValue(String text) {
        assertThatThrownBy(() -> Counts.positive("governance.spark.write-channels", text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'governance.spark.write-channels' = '" + text + "' is not a positive integer");
    }
}
