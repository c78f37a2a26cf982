package io.paimongov.runtime.write;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.apache.paimon.data.BinaryRow;

/**
 * Values by (partition, bucket) writer, looked up on every row without allocating: {@link #get}
 * takes the row's partition and bucket as they are (the partition may be a buffer Paimon reuses)
 * and compares them with the kept keys in place. Each lookup and put stamps the entry's last use, so
 * {@link #leastRecent} finds the least recently used entry that passes a test, as an access-ordered
 * {@code LinkedHashMap} would give it.
 *
 * <p>Why not a {@code HashMap<WriterKey, V>}: a row needs a key object to look its writer up, and the
 * map's calls of {@code hashCode} and {@code equals} are shared by every key type in the JVM, so the
 * JIT cannot inline them. On an 8-writer Avro append table that lookup was about 6% of the write's
 * time in a profile (docs/performance.md). Here the comparison is this class's own code.
 *
 * <p>Linear probing in a power-of-two table kept at most half full; removal shifts the entries after
 * the removed one back (no tombstones), so a table that churns through many writers stays as fast as
 * a fresh one.
 *
 * <p><b>Thread-safety:</b> none; the writing thread inside a write call.
 *
 * @param <V> what is kept per writer
 */
final class WriterTable<V> {

    private static final int MIN_CAPACITY = 16;

    private WriterKey[] keys = new WriterKey[MIN_CAPACITY];
    private Object[] values = new Object[MIN_CAPACITY];
    private long[] used = new long[MIN_CAPACITY];
    private int size;
    private long clock;

    /** The value of (partition, bucket), marked as used now; null when absent. */
    V get(BinaryRow partition, int bucket) {
        return get(partition, bucket, WriterKey.hash(partition, bucket));
    }

    /** {@link #get(BinaryRow, int)} with {@code hash} = {@link WriterKey#hash} of them, computed once by the caller. */
    V get(BinaryRow partition, int bucket, int hash) {
        int i = find(partition, bucket, hash);
        if (i < 0) {
            return null;
        }
        used[i] = ++clock;
        return value(i);
    }

    /** Whether (partition, bucket) has a value; does not mark it as used. */
    boolean contains(BinaryRow partition, int bucket) {
        return contains(partition, bucket, WriterKey.hash(partition, bucket));
    }

    /** {@link #contains(BinaryRow, int)} with {@code hash} = {@link WriterKey#hash} of them. */
    boolean contains(BinaryRow partition, int bucket, int hash) {
        return find(partition, bucket, hash) >= 0;
    }

    /**
     * Keeps {@code value} for {@code key}, marked as used now; replaces any value it had. The key's
     * partition must not be a reused buffer: it is kept.
     *
     * @return the value it replaced, or null
     */
    V put(WriterKey key, V value) {
        int i = find(key.partition(), key.bucket(), key.hashCode());
        if (i >= 0) {
            V old = value(i);
            values[i] = value;
            used[i] = ++clock;
            return old;
        }
        if (2 * (size + 1) > keys.length) {
            resize(keys.length * 2);
        }
        i = slot(key.hashCode());
        while (keys[i] != null) {
            i = (i + 1) & (keys.length - 1);
        }
        keys[i] = key;
        values[i] = value;
        used[i] = ++clock;
        size++;
        return null;
    }

    /** Removes the value of {@code key}; returns it, or null when absent. */
    V remove(WriterKey key) {
        int i = find(key.partition(), key.bucket(), key.hashCode());
        if (i < 0) {
            return null;
        }
        V old = value(i);
        removeAt(i);
        return old;
    }

    /** The least recently used key whose value passes {@code test}; null when none does. */
    WriterKey leastRecent(Predicate<V> test) {
        int best = -1;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null && (best < 0 || used[i] < used[best]) && test.test(value(i))) {
                best = i;
            }
        }
        return best < 0 ? null : keys[best];
    }

    /** Removes every entry {@code test} accepts; the test is called once per entry and may act on it (release it). */
    void removeIf(BiPredicate<WriterKey, V> test) {
        List<WriterKey> accepted = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null && test.test(keys[i], value(i))) {
                accepted.add(keys[i]);
            }
        }
        accepted.forEach(this::remove);
    }

    /** The keys now, in no particular order; a copy, so the table may change while it is walked. */
    List<WriterKey> keys() {
        List<WriterKey> out = new ArrayList<>(size);
        for (WriterKey k : keys) {
            if (k != null) {
                out.add(k);
            }
        }
        return out;
    }

    /** The values now, in no particular order; a copy. */
    List<V> values() {
        List<V> out = new ArrayList<>(size);
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) {
                out.add(value(i));
            }
        }
        return out;
    }

    int size() {
        return size;
    }

    /** Removes every entry and shrinks back to the first capacity. */
    void clear() {
        keys = new WriterKey[MIN_CAPACITY];
        values = new Object[MIN_CAPACITY];
        used = new long[MIN_CAPACITY];
        size = 0;
    }

    private int find(BinaryRow partition, int bucket, int hash) {
        int mask = keys.length - 1;
        for (int i = slot(hash); ; i = (i + 1) & mask) {
            WriterKey k = keys[i];
            if (k == null) {
                return -1;
            }
            if (k.is(partition, bucket, hash)) {
                return i;
            }
        }
    }

    /** Backward-shift deletion: entries after {@code i} that would no longer be found move back. */
    private void removeAt(int i) {
        int mask = keys.length - 1;
        int hole = i;
        for (int j = (i + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
            int home = slot(keys[j].hashCode());
            // j's entry may fill the hole unless its home lies cyclically in (hole, j].
            boolean homeAfterHole = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (!homeAfterHole) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                used[hole] = used[j];
                hole = j;
            }
        }
        keys[hole] = null;
        values[hole] = null;
        used[hole] = 0;
        size--;
    }

    private void resize(int capacity) {
        WriterKey[] oldKeys = keys;
        Object[] oldValues = values;
        long[] oldUsed = used;
        keys = new WriterKey[capacity];
        values = new Object[capacity];
        used = new long[capacity];
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != null) {
                int i = slot(oldKeys[j].hashCode());
                while (keys[i] != null) {
                    i = (i + 1) & (capacity - 1);
                }
                keys[i] = oldKeys[j];
                values[i] = oldValues[j];
                used[i] = oldUsed[j];
            }
        }
    }

    /** The home slot of {@code hash}: its high bits folded in, as a partition's hash varies little in its low ones. */
    private int slot(int hash) {
        return (hash ^ (hash >>> 16)) & (keys.length - 1);
    }

    @SuppressWarnings("unchecked")
    private V value(int i) {
        return (V) values[i];
    }
}
