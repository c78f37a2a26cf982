package io.paimongov.runtime.write;

import io.paimongov.runtime.internal.memory.MemoryReservation;
import io.paimongov.runtime.internal.spill.TieredSortBuffer;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.paimon.KeyValue;
import org.apache.paimon.compression.BlockCompressionFactory;
import org.apache.paimon.compression.CompressOptions;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.memory.MemoryOwner;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.memory.MemorySegmentPool;
import org.apache.paimon.mergetree.MergeTreeWriter;
import org.apache.paimon.mergetree.SortBufferWriteBuffer;
import org.apache.paimon.sort.BinaryExternalSortBuffer;
import org.apache.paimon.sort.BinaryIndexedSortable;
import org.apache.paimon.sort.SortBuffer;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.FieldsComparator;

/**
 * The write's memory pool factory, which gives every primary-key writer with a spillable write
 * buffer a {@link TieredSortBuffer} in place of Paimon's {@code BinaryExternalSortBuffer}.
 *
 * <p>Why: Paimon's buffer merges every run (the big merged one included) whenever their count
 * reaches the fan-in, so at the small fan-in a small budget allows it rewrites all it spilled at
 * every spill (quadratic), and a spill asked for by another writer ({@code flushMemory}) never
 * merges, so the final read may open every run at once. Paimon 1.4.2's {@code MergeTreeWriter}
 * builds its buffer itself with no hook. Right after Paimon makes a writer and gives it its pool
 * ({@link #notifyNewOwner}), before it holds a row, this replaces the sort buffer inside the
 * writer's {@link SortBufferWriteBuffer} by reflection with a tiered one over the same pool, key
 * order (key fields, user-defined sequence fields, sequence number), fan-in and codec. This is the
 * one place that reaches into Paimon's write buffer; {@code TieredWriteBuffersTest} checks it
 * against the Paimon on the class path. A writer whose buffer is not spillable, or whose spill
 * codec the tiered buffer cannot read back ({@code none}), keeps Paimon's buffer. Every writer's
 * sort buffer, tiered or Paimon's, is then wrapped so that its flush checks the write's
 * cancellation ({@link CheckedSortBuffer}).
 *
 * <p>Memory: the tiered buffers' spill channels are charged to {@code channels}, the write's one
 * "spill I/O buffers" reservation sized for one merge ({@link WriteFootprint#spillIoBytes()}):
 * writers spill and merge on the writing thread, one at a time, as Paimon's buffers do.
 *
 * <p><b>Thread-safety:</b> as {@link MemoryPoolFactory}: called on the writing thread.
 */
final class TieredWriteBuffers extends MemoryPoolFactory {

    private static final Field SPILLABLE = field(MergeTreeWriter.class, "writeBufferSpillable");
    private static final Field SORT_MAX_FAN = field(MergeTreeWriter.class, "sortMaxFan");
    private static final Field SORT_COMPRESSION = field(MergeTreeWriter.class, "sortCompression");
    private static final Field KEY_TYPE = field(MergeTreeWriter.class, "keyType");
    private static final Field VALUE_TYPE = field(MergeTreeWriter.class, "valueType");
    private static final Field SEQUENCE_FIELDS = field(MergeTreeWriter.class, "userDefinedSeqComparator");
    private static final Field WRITE_BUFFER = field(MergeTreeWriter.class, "writeBuffer");
    private static final Field SORT_BUFFER = field(SortBufferWriteBuffer.class, "buffer");
    private static final Field IN_MEMORY = field(BinaryExternalSortBuffer.class, "inMemorySortBuffer");
    private static final Field POOL = field(BinaryIndexedSortable.class, "memorySegmentPool");

    private final IOManager ioManager;
    private final CheckedStreams.Check cancelled;
    private final MemoryReservation channels;
    private final int block;
    private final String runCodec;
    private int tiered;

    /**
     * @param pool the write's pool, as {@link MemoryPoolFactory} takes it
     * @param ioManager the write's governed spill manager
     * @param channels the reservation the spill channels are charged to (not grown here)
     * @param block the spill compression block ({@link WriteFootprint#spillBlockBytes()}), at which
     *     {@code channels} was sized
     * @param runCodec the codec of the runs the buffers write from memory ({@link
     *     WriteFootprint#spillRunCodec()}) and merge for their sorted read; runs a full tier
     *     merges take the writer's own spill codec
     * @param cancelled the write's cancellation check, which every writer's sorted read (its
     *     flush) runs ({@link CheckedSortBuffer})
     */
    TieredWriteBuffers(MemorySegmentPool pool, IOManager ioManager, MemoryReservation channels, int block, String runCodec,
            CheckedStreams.Check cancelled) {
        super(pool);
        this.ioManager = ioManager;
        this.cancelled = cancelled;
        this.channels = channels;
        this.block = block;
        this.runCodec = runCodec;
    }

    @Override
    public void notifyNewOwner(MemoryOwner owner) {
        super.notifyNewOwner(owner);
        if (owner instanceof MergeTreeWriter writer) {
            tier(writer);
            checkFlushes(writer);
        }
    }

    /** Wraps the writer's sort buffer (tiered or Paimon's) so that its flush checks the cancellation. */
    private void checkFlushes(MergeTreeWriter writer) {
        try {
            if (WRITE_BUFFER.get(writer) instanceof SortBufferWriteBuffer buffer
                    && SORT_BUFFER.get(buffer) instanceof SortBuffer sort
                    && !(sort instanceof CheckedSortBuffer)) {
                SORT_BUFFER.set(buffer, new CheckedSortBuffer(sort, cancelled));
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot reach the write buffer of Paimon's MergeTreeWriter", e);
        }
    }

    /** Writers given a tiered buffer so far. */
    int tiered() {
        return tiered;
    }

    private void tier(MergeTreeWriter writer) {
        try {
            if (!SPILLABLE.getBoolean(writer)
                    || !(WRITE_BUFFER.get(writer) instanceof SortBufferWriteBuffer buffer)
                    || !(SORT_BUFFER.get(buffer) instanceof BinaryExternalSortBuffer external)) {
                return;
            }
            CompressOptions compression = (CompressOptions) SORT_COMPRESSION.get(writer);
            CompressOptions runCompression = WriteFootprint.spillRunCompression(runCodec, compression);
            if (!readsBack(compression) || !readsBack(runCompression)) {
                return;
            }
            RowType keyType = (RowType) KEY_TYPE.get(writer);
            RowType valueType = (RowType) VALUE_TYPE.get(writer);
            MemorySegmentPool pool = (MemorySegmentPool) POOL.get(IN_MEMORY.get(external));
            // Paimon's buffer holds its first pages; they go back before the tiered one takes its own.
            external.clear();
            TieredSortBuffer replacement = new TieredSortBuffer(
                    KeyValue.schema(keyType, valueType),
                    sortFields(keyType, (FieldsComparator) SEQUENCE_FIELDS.get(writer)),
                    pool,
                    ioManager,
                    Math.max(SpillChannels.MIN_SPILL_FAN_IN, SORT_MAX_FAN.getInt(writer)),
                    runCompression,
                    compression,
                    block,
                    channels,
                    0);
            SORT_BUFFER.set(buffer, replacement);
            tiered++;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot reach the write buffer of Paimon's MergeTreeWriter", e);
        }
    }

    /** Whether the tiered buffer can spill with {@code compression} (Paimon's spill reader cannot read {@code none}). */
    static boolean readsBack(CompressOptions compression) {
        return BlockCompressionFactory.create(compression) != null;
    }

    /**
     * The order of a write buffer's rows ({@code KeyValue.schema}: key fields, sequence number, row
     * kind, value fields): the key, then the user-defined sequence fields, then the sequence
     * number, as Paimon's {@code SortBufferWriteBuffer} sorts them.
     */
    static int[] sortFields(RowType keyType, FieldsComparator sequenceFields) {
        int keys = keyType.getFieldCount();
        List<Integer> fields = new ArrayList<>();
        IntStream.range(0, keys).forEach(fields::add);
        if (sequenceFields != null) {
            IntStream.of(sequenceFields.compareFields()).map(f -> f + keys + 2).forEach(fields::add);
        }
        fields.add(keys);
        return fields.stream().mapToInt(Integer::intValue).toArray();
    }

    private static Field field(Class<?> owner, String name) {
        return PaimonFields.field(owner, name, "the tiered write buffer");
    }
}
