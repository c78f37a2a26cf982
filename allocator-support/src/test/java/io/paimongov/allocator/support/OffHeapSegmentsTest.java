package io.paimongov.allocator.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.paimon.memory.MemorySegment;
import org.junit.jupiter.api.Test;

/** {@link OffHeapSegments#wrap} against Paimon's own {@code wrapOffHeapMemory} over the same page. */
class OffHeapSegmentsTest {

    @Test
    void wrapSeesTheSameNativeMemoryAsPaimonsOwnWrap() throws Exception {
        ByteBuffer page = ByteBuffer.allocateDirect(4096);
        // The buffer's native address, as an engine's page carries it (the build opens java.nio).
        Field field = Buffer.class.getDeclaredField("address");
        field.setAccessible(true);
        long address = field.getLong(page);
        MemorySegment reference = MemorySegment.wrapOffHeapMemory(page);
        MemorySegment wrapped = OffHeapSegments.wrap(page, address);
        assertThat(wrapped.size()).isEqualTo(reference.size()).isEqualTo(4096);
        assertThat(wrapped.isOffHeap()).isEqualTo(reference.isOffHeap()).isTrue();
        wrapped.putLong(4088, 0x5EED_5EEDL);
        assertThat(reference.getLong(4088)).isEqualTo(0x5EED_5EEDL);
        assertThat(page.order(ByteOrder.nativeOrder()).getLong(4088)).isEqualTo(0x5EED_5EEDL);
    }
}
