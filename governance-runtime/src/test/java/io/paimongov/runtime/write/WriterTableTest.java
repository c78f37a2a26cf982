package io.paimongov.runtime.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link WriterTable} against a reference model, an access-ordered {@link LinkedHashMap} of {@link
 * WriterKey}s: random sequences of lookups, puts, removals and least-recently-used picks over
 * partitions small enough to be compared word by word and large enough to take {@link
 * BinaryRow#equals}, looked up through buffers other than the kept keys (as a row's reused
 * partition is).
 */
class WriterTableTest {

    private static final InternalRowSerializer PARTITION =
            new InternalRowSerializer(RowType.of(DataTypes.INT(), DataTypes.STRING()));

    /** A partition row of {@code (id, name)}: names past 7 bytes go to the row's variable part. */
    private static BinaryRow partition(int id, String name) {
        return PARTITION.toBinaryRow(GenericRow.of(id, BinaryString.fromString(name))).copy();
    }

    /** The same bytes as {@code row}, at an offset inside a larger segment: a buffer, not the kept key. */
    private static BinaryRow elsewhere(BinaryRow row) {
        byte[] bytes = new byte[row.getSizeInBytes() + 40];
        row.getSegments()[0].get(row.getOffset(), bytes, 24, row.getSizeInBytes());
        BinaryRow copy = new BinaryRow(row.getFieldCount());
        copy.pointTo(MemorySegment.wrap(bytes), 24, row.getSizeInBytes());
        return copy;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void behavesAsAnAccessOrderedMap(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<BinaryRow> partitions = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            // Short names stay within the word-compared size; long ones do not (over 64 bytes).
            partitions.add(partition(i % 5, i < 6 ? "p" + i : "partition-" + "x".repeat(60) + i));
        }
        WriterTable<Integer> table = new WriterTable<>();
        LinkedHashMap<WriterKey, Integer> model = new LinkedHashMap<>(16, 0.75f, true);
        for (int op = 0; op < 3000; op++) {
            BinaryRow p = partitions.get(random.nextInt(partitions.size()));
            int bucket = random.nextInt(-1, 6);
            WriterKey key = new WriterKey(p.copy(), bucket);
            switch (random.nextInt(7)) {
                case 0, 1 -> assertThat(table.get(elsewhere(p), bucket)).isEqualTo(model.get(key));
                case 2 -> assertThat(table.contains(elsewhere(p), bucket)).isEqualTo(model.containsKey(key));
                case 3 -> {
                    int value = random.nextInt(100);
                    assertThat(table.put(key, value)).isEqualTo(model.put(key, value));
                }
                case 4 -> assertThat(table.remove(key)).isEqualTo(model.remove(key));
                case 5 -> {
                    int parity = random.nextInt(2);
                    WriterKey expected = model.entrySet().stream()
                            .filter(e -> e.getValue() % 2 == parity).map(Map.Entry::getKey).findFirst().orElse(null);
                    assertThat(table.leastRecent(v -> v % 2 == parity)).isEqualTo(expected);
                }
                default -> {
                    if (random.nextInt(20) == 0) {
                        List<WriterKey> seen = new ArrayList<>();
                        table.removeIf((k, v) -> {
                            seen.add(k);
                            return v % 3 == 0;
                        });
                        assertThat(seen).as("each entry tested once").doesNotHaveDuplicates().hasSize(model.size());
                        model.values().removeIf(v -> v % 3 == 0);
                    }
                }
            }
            assertThat(table.size()).isEqualTo(model.size());
        }
        assertThat(new HashSet<>(table.keys())).isEqualTo(model.keySet());
        assertThat(table.values()).containsExactlyInAnyOrderElementsOf(model.values());
    }

    @Test
    void keysAreEqualExactlyWhenTheirBytesAndBucketsAre() {
        BinaryRow small = partition(7, "a");
        BinaryRow large = partition(7, "y".repeat(100));
        assertThat(small.getSizeInBytes()).isLessThanOrEqualTo(WriterKey.WORD_BYTES);
        assertThat(large.getSizeInBytes()).isGreaterThan(WriterKey.WORD_BYTES);
        for (BinaryRow p : List.of(small, large)) {
            WriterKey kept = new WriterKey(p, 3);
            WriterKey probe = new WriterKey(elsewhere(p), 3);
            assertThat(probe).isEqualTo(kept).hasSameHashCodeAs(kept);
            assertThat(new WriterKey(p, 4)).isNotEqualTo(kept);
        }
        assertThat(new WriterKey(partition(8, "a"), 3)).isNotEqualTo(new WriterKey(small, 3));
        assertThat(new WriterKey(partition(7, "b"), 3)).isNotEqualTo(new WriterKey(small, 3));
        assertThat(new WriterKey(BinaryRow.EMPTY_ROW, 0)).isEqualTo(new WriterKey(BinaryRow.EMPTY_ROW.copy(), 0));
    }

    @Test
    void manyWritersInAndOutKeepEveryLookupRight() {
        // Far past the first capacity, removed in another order than put: resizes and back-shifts.
        WriterTable<Integer> table = new WriterTable<>();
        List<WriterKey> keys = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            WriterKey key = new WriterKey(partition(i / 8, "p"), i % 8);
            keys.add(key);
            table.put(key, i);
        }
        for (int i = 0; i < 5000; i += 3) {
            assertThat(table.remove(keys.get(i))).isEqualTo(i);
        }
        for (int i = 0; i < 5000; i++) {
            WriterKey key = keys.get(i);
            assertThat(table.get(elsewhere(key.partition()), key.bucket())).isEqualTo(i % 3 == 0 ? null : i);
        }
        assertThat(table.size()).isEqualTo(5000 - 1667);
        table.clear();
        assertThat(table.size()).isZero();
        assertThat(table.get(keys.get(1).partition(), keys.get(1).bucket())).isNull();
    }
}
