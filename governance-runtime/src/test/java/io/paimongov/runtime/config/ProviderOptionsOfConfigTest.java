package io.paimongov.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.paimongov.spi.ProviderOptions;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a provider is told is what was configured, and none of the runtime's own keys. */
class ProviderOptionsOfConfigTest {

    @Test
    void passesTheValidatedSettingsAndOnlyTheKeysTheRuntimeDoesNotOwn(@TempDir Path spill) throws Exception {
        ProviderOptions options = GovernanceOptions.of(Map.of(
                        "governance.provider", "acme",
                        "governance.memory.budget", "3m",
                        "governance.memory.page-size", "32k",
                        "governance.spill.dirs", spill.toString(),
                        "governance.spill.max-bytes", "7m",
                        "governance.compaction.task-threads", "2",
                        "governance.acme.weight", "4"))
                .providerOptions();
        assertThat(options.budgetBytes()).isEqualTo(3L << 20);
        assertThat(options.pageSize()).isEqualTo(32 << 10);
        assertThat(options.spillDirs()).containsExactly(spill.toRealPath());
        assertThat(options.spillDirsGiven()).isTrue();
        assertThat(options.spillMaxBytes()).isEqualTo(7L << 20);
        assertThat(options.providerKeys()).isEqualTo(Map.of("governance.acme.weight", "4"));
    }

    @Test
    void saysWhenTheSpillDirsAreTheDefault() {
        ProviderOptions options = GovernanceOptions.defaults().providerOptions();
        assertThat(options.spillDirsGiven()).isFalse();
        assertThat(options.spillMaxBytes()).isEqualTo(Long.MAX_VALUE);
        assertThat(options.budgetBytes()).isEqualTo(64L << 20);
        assertThat(options.pageSize()).isEqualTo(64 << 10);
    }
}
