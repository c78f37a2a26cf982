package io.paimongov.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderOptionsTest {

    @Test
    void carriesWhatItWasGiven() {
        ProviderOptions options = ProviderOptions.builder(1 << 20, 32 << 10)
                .spillDirs(List.of(Path.of("/tmp/a"), Path.of("/tmp/b/../c")), true)
                .spillMaxBytes(5 << 20)
                .providerKey("governance.acme.pool", "shared")
                .build();
        assertThat(options.budgetBytes()).isEqualTo(1 << 20);
        assertThat(options.pageSize()).isEqualTo(32 << 10);
        assertThat(options.spillDirs()).containsExactly(Path.of("/tmp/a"), Path.of("/tmp/c"));
        assertThat(options.spillDirsGiven()).isTrue();
        assertThat(options.spillMaxBytes()).isEqualTo(5 << 20);
        assertThat(options.raw("governance.acme.pool")).contains("shared");
        assertThat(options.raw("governance.acme.other")).isEmpty();
        assertThat(options.providerKeys()).isEqualTo(Map.of("governance.acme.pool", "shared"));
    }

    @Test
    void defaultsSpillToTheTempDirWithoutALimit() {
        ProviderOptions options = ProviderOptions.builder(1 << 20, 4096).build();
        assertThat(options.spillDirs()).containsExactly(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
        assertThat(options.spillDirsGiven()).isFalse();
        assertThat(options.spillMaxBytes()).isEqualTo(Long.MAX_VALUE);
        assertThat(options.providerKeys()).isEmpty();
    }

    @Test
    void refusesPageSizesPaimonCannotUseAndBudgetsBelowOnePage() {
        for (int bad : new int[] {0, 2048, 3 << 12, 32 << 20}) {
            assertThatThrownBy(() -> ProviderOptions.builder(1L << 30, bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("pageSize " + bad + " must be a power of two from 4096 to 16777216");
        }
        assertThatThrownBy(() -> ProviderOptions.builder(4095, 4096))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("budgetBytes 4095 is below one page of 4096");
        assertThatThrownBy(() -> ProviderOptions.builder(4096, 4096).spillDirs(List.of(), false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProviderOptions.builder(4096, 4096).spillMaxBytes(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsUnknownKeysInTheProvidersOwnNamespaceOnly() {
        ProviderOptions options = ProviderOptions.builder(1 << 20, 4096)
                .providerKey("governance.acme.weight", "3")
                .providerKey("governance.acme.zz-typo", "1")
                .providerKey("governance.other.key", "x")
                .build();
        options.rejectUnknownKeys("other", List.of("governance.other.key"));
        assertThatThrownBy(() -> options.rejectUnknownKeys("acme", List.of("governance.acme.weight")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown option 'governance.acme.zz-typo' for provider 'acme'; known: governance.acme.weight");
        assertThatThrownBy(() -> options.rejectUnknownKeys("acme", List.of()))
                .hasMessage("unknown option 'governance.acme.weight' for provider 'acme'; known: none");
    }
}
