package io.paimongov.runtime.write;

import io.paimongov.runtime.memory.MemoryReservation;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.io.cache.CacheCallback;
import org.apache.paimon.io.cache.CacheKey;
import org.apache.paimon.io.cache.CacheManager;
import org.apache.paimon.io.cache.CacheReader;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.operation.FileStoreWrite;
import org.apache.paimon.operation.MemoryFileStoreWrite;
import org.apache.paimon.options.MemorySize;

/**
 * The lookup cache of a write whose compaction looks keys up (deletion vectors, the lookup
 * changelog producer, first-row, {@code force-lookup}), charged page by page as it fills. Paimon's
 * own cache ({@code lookup.cache-max-memory-size}, one per write, shared by its writers) holds the
 * pages it reads from lookup files on the heap; reserving its whole size when the write opens
 * charged memory that a write with nothing to look up never used (a pk-dv write into a new table:
 * 4 MiB of a 64 MiB budget, most of its heap drift of -0.17).
 *
 * <p>Each page this cache loads is charged to the write's {@code lookup cache} reservation before it
 * is kept, and given back when Paimon's cache evicts or invalidates it. A page that cannot be
 * charged (the budget is full) is read and handed to the caller uncached, as if the cache were
 * smaller: the lookup goes on at the cost of reading the page again next time, and the heap holds
 * it only while the caller uses it. The cache's own bound, {@code lookup.cache-max-memory-size},
 * still caps what it keeps.
 *
 * <p>It takes the place of the cache Paimon makes in its write ({@link #install}); a Paimon whose
 * write keeps its cache elsewhere gets none, and the caller reserves the whole size at open as
 * before.
 *
 * <p><b>Thread-safety:</b> thread-safe, as Paimon's cache: lookups run on the writing thread and on
 * compaction threads. The reservation is thread-safe.
 */
final class ChargedLookupCache extends CacheManager {

    private final MemoryReservation charge;

    ChargedLookupCache(MemorySize maxBytes, double highPriorityPoolRatio, MemoryReservation charge) {
        super(maxBytes, highPriorityPoolRatio);
        this.charge = charge;
    }

    /**
     * Puts a cache of {@code maxBytes} charged to {@code charge} in place of the one Paimon's
     * {@code write} made, before any of its writers exists: in the write's own field and wherever
     * the write handed it on when it was built (its compaction manager factory, which gives it to
     * each writer's lookup levels), found as fields of Paimon's objects one step from the write that
     * hold that same cache.
     *
     * @return false, changing nothing, when this Paimon's write keeps no lookup cache where this
     *     class looks for it or a field cannot be set
     */
    static boolean install(FileStoreWrite<?> write, MemorySize maxBytes, double highPriorityPoolRatio, MemoryReservation charge) {
        if (!(write instanceof MemoryFileStoreWrite<?>)) {
            return false;
        }
        try {
            Field own = MemoryFileStoreWrite.class.getDeclaredField("cacheManager");
            own.setAccessible(true);
            Object original = own.get(write);
            if (original == null || original.getClass() != CacheManager.class) {
                return false;
            }
            List<Holder> holders = new ArrayList<>();
            holders.add(new Holder(write, own));
            for (Field f : fields(write.getClass())) {
                Object held = paimonObject(write, f);
                if (held != null && held != original) {
                    for (Field g : fields(held.getClass())) {
                        if (g.getType() == CacheManager.class && paimonObject(held, g) == original) {
                            holders.add(new Holder(held, g));
                        }
                    }
                }
            }
            ChargedLookupCache charged = new ChargedLookupCache(maxBytes, highPriorityPoolRatio, charge);
            List<Holder> set = new ArrayList<>();
            try {
                for (Holder h : holders) {
                    h.field.set(h.owner, charged);
                    set.add(h);
                }
            } catch (IllegalAccessException | RuntimeException e) {
                for (Holder h : set) {
                    h.field.set(h.owner, original);
                }
                return false;
            }
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    private record Holder(Object owner, Field field) {}

    /** The instance fields of {@code type} and its superclasses. */
    private static List<Field> fields(Class<?> type) {
        List<Field> out = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    /** The value of {@code f} in {@code owner} when it is one of Paimon's objects, made accessible; else null. */
    private static Object paimonObject(Object owner, Field f) {
        try {
            f.setAccessible(true);
            Object value = f.get(owner);
            return value != null && value.getClass().getName().startsWith("org.apache.paimon.") ? value : null;
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    @Override
    public MemorySegment getPage(CacheKey key, CacheReader reader, CacheCallback callback) {
        Load load = new Load(reader);
        try {
            return super.getPage(key, load, k -> {
                release(load.charged);
                callback.onRemoval(k);
            });
        } catch (RuntimeException e) {
            if (load.uncharged != null) {
                // Read, but no room to keep it: the caller gets the page uncached.
                return MemorySegment.wrap(load.uncharged);
            }
            throw e;
        }
    }

    /** Gives back an evicted page's charge; nothing once the write closed the reservation, which gave everything back. */
    private void release(long bytes) {
        if (bytes == 0 || charge.isClosed()) {
            return;
        }
        try {
            charge.shrink(bytes);
        } catch (IllegalArgumentException e) {
            if (!charge.isClosed()) {
                throw e;
            }
        }
    }

    /** One load through the cache: the page is charged before Paimon's cache keeps it. */
    private final class Load implements CacheReader {
        private final CacheReader reader;
        /** Bytes charged for the page this load put in the cache; read by the removal callback. */
        private volatile long charged;
        /** A page read that could not be charged. */
        private byte[] uncharged;

        Load(CacheReader reader) {
            this.reader = reader;
        }

        @Override
        public byte[] read(CacheKey key) throws IOException {
            byte[] page = reader.read(key);
            if (!charge.tryGrow(page.length)) {
                uncharged = page;
                throw new NotCharged();
            }
            charged = page.length;
            return page;
        }
    }

    /** Aborts a load whose page could not be charged; caught in {@link #getPage}. */
    private static final class NotCharged extends RuntimeException {
        NotCharged() {
            super("lookup cache page not charged", null, false, false);
        }
    }
}
