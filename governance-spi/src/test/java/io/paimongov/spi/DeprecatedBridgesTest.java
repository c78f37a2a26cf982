package io.paimongov.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An allocator written against the SPI before a signature changed still compiles for one version
 * and behaves as with the call that replaced it (docs/tck.md, "Changelog"). Each bridge is
 * compared with its replacement, not with itself.
 */
@SuppressWarnings("removal")
class DeprecatedBridgesTest {

    @Test
    void theSixArgumentRefusalIsTheRefusalOfMemory() {
        ResourceExhaustedException old = new ResourceExhaustedException(
                ResourceExhaustedException.Resource.MEMORY, "acme pages", 65_536, 1_000_000, 1_048_576, List.of());
        ResourceExhaustedException now = ResourceExhaustedException.memory("acme pages", 65_536, 1_000_000, 1_048_576);
        assertThat(old.getMessage()).isEqualTo(now.getMessage());
        assertThat(List.of(old.resource(), old.requester(), old.requestedBytes(), old.reservedBytes(), old.capacityBytes(), old.largestHolders()))
                .isEqualTo(List.of(now.resource(), now.requester(), now.requestedBytes(), now.reservedBytes(), now.capacityBytes(), now.largestHolders()));
    }
}
