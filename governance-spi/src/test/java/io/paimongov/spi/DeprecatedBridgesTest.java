package io.paimongov.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;
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

    @Test
    void wrapOffHeapIsOffHeapSegmentsWrap() throws Exception {
        ByteBuffer page = ByteBuffer.allocateDirect(4096);
        // The buffer's native address, as an engine's page carries it (the build opens java.nio).
        java.lang.reflect.Field field = java.nio.Buffer.class.getDeclaredField("address");
        field.setAccessible(true);
        long address = field.getLong(page);
        MemorySegment old = PagedAllocator.wrapOffHeap(page, address);
        MemorySegment now = OffHeapSegments.wrap(page, address);
        assertThat(old.size()).isEqualTo(now.size()).isEqualTo(4096);
        assertThat(old.isOffHeap()).isEqualTo(now.isOffHeap()).isTrue();
        old.putLong(4088, 0x5EED_5EEDL);
        assertThat(now.getLong(4088)).isEqualTo(0x5EED_5EEDL);
        assertThat(page.order(java.nio.ByteOrder.nativeOrder()).getLong(4088)).isEqualTo(0x5EED_5EEDL);
    }
}
