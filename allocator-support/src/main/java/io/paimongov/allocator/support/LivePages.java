package io.paimongov.allocator.support;

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.memory.MemorySegment;

/**
 * The pages one {@link PagedAllocator} handed out, each Paimon segment with the engine's handle of
 * it, by identity: so a release gives back exactly the pages this allocator handed out and ignores
 * a foreign or already released one. Also the stranded pages: those the engine would not take back
 * when an allocation was undone, given back at close.
 *
 * <p><b>Thread-safety:</b> not thread-safe; used under the allocator's lock.
 *
 * @param <P> the engine's handle of one page
 */
final class LivePages<P> {

    /** Segments taken out of the live pages by {@link #remove}, with their handles, in the caller's order. */
    record Removed<P>(List<MemorySegment> segments, List<P> pages) {
        boolean isEmpty() {
            return pages.isEmpty();
        }
    }

    private final Map<MemorySegment, P> live = new IdentityHashMap<>();
    private final List<P> stranded = new ArrayList<>();

    void register(List<P> taken, MemorySegment[] made) {
        for (int i = 0; i < made.length; i++) {
            live.put(made[i], taken.get(i));
        }
    }

    /**
     * Takes the live ones of {@code segments} out, in the order {@code segments} lists them; a
     * segment listed twice is found once. One look-up per page on the usual path; {@link #putBack}
     * undoes it should the engine refuse them.
     */
    Removed<P> remove(Collection<MemorySegment> segments) {
        List<MemorySegment> gone = new ArrayList<>(segments.size());
        List<P> pages = new ArrayList<>(segments.size());
        for (MemorySegment segment : segments) {
            P page = live.remove(segment);
            if (page != null) {
                gone.add(segment);
                pages.add(page);
            }
        }
        return new Removed<>(gone, pages);
    }

    void putBack(Removed<P> removed) {
        for (int i = 0; i < removed.segments().size(); i++) {
            live.put(removed.segments().get(i), removed.pages().get(i));
        }
    }

    void strand(List<P> pages) {
        stranded.addAll(pages);
    }

    /** Every live and stranded page, for close. */
    List<P> all() {
        List<P> pages = new ArrayList<>(live.values());
        pages.addAll(stranded);
        return pages;
    }

    boolean isEmpty() {
        return live.isEmpty() && stranded.isEmpty();
    }

    void clear() {
        live.clear();
        stranded.clear();
    }
}
