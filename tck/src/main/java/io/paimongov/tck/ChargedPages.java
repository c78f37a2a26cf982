package io.paimongov.tck;

import static io.paimongov.tck.TckContext.check;

import io.paimongov.spi.EngineResources;
import io.paimongov.spi.SegmentAllocator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.paimon.memory.MemorySegment;

/**
 * MEM-17's scenario: writes on one engine take pages after earlier writes (and themselves) gave
 * pages back, side by side and one after another, and after every grant the engine's counter must
 * be up by at least what the open writes hold as the kit counts it (the pages it was handed and
 * has not given back, times the page size, and the bytes it reserved). An allocator that keeps
 * released pages and hands them out again without asking the engine holds memory the engine does
 * not know of: its own books balance, the engine is back at its start after every close, and only
 * this comparison, made while the page is held, shows it.
 *
 * <p>One scenario per instance, on the rule's thread.
 */
final class ChargedPages {

    /** Pages each write takes in one go. */
    static final int PAGES = 8;
    static final long RESERVED = 10_000;

    private final TckSubject subject;
    /** What each open write holds, as the kit counts it. */
    private final Map<String, Held> writes = new LinkedHashMap<>();

    ChargedPages(TckSubject subject) {
        this.subject = subject;
    }

    /** One write's resources and what the kit handed it and it still holds. */
    private static final class Held {
        final EngineResources resources;
        final SegmentAllocator allocator;
        final List<MemorySegment> pages = new ArrayList<>();
        long reserved;

        Held(EngineResources resources) {
            this.resources = resources;
            this.allocator = resources.memory();
        }

        long bytes() {
            return (long) pages.size() * allocator.pageSize() + reserved;
        }
    }

    void run() {
        Held a = open("A");
        take(a, "write A", PAGES);
        reserve(a, "write A", RESERVED);
        giveBack(a, PAGES);
        take(a, "write A, again after giving its pages back,", PAGES / 2);
        giveBack(a, PAGES / 2);

        Held b = open("B");
        take(b, "write B, opened beside A after A gave its pages back,", PAGES);
        a.allocator.release(a.reserved);
        a.reserved = 0;
        close("A");
        giveBack(b, PAGES / 2);

        Held c = open("C");
        take(c, "write C, opened after A closed and B gave half its pages back,", PAGES);
        close("B");
        take(c, "write C, after B closed holding " + PAGES / 2 + " pages,", PAGES / 2);
        giveBack(c, c.pages.size());
        close("C");
        subject.checkEngineBack(Rule.MEM_17, "every write closed");
    }

    private Held open(String name) {
        Held held = new Held(subject.open());
        writes.put(name, held);
        return held;
    }

    private void close(String name) {
        Held held = writes.remove(name);
        try {
            held.resources.close();
        } catch (IllegalStateException leakReported) {
            // EngineResources.close() may report pages still held (RES.4); B closes with some on purpose.
        }
    }

    /** Takes {@code count} pages one at a time, checking the engine after each. */
    private void take(Held held, String who, int count) {
        for (int i = 0; i < count; i++) {
            held.allocator.allocate(held.pages, 1);
            charged(who + " took page " + (i + 1) + " of " + count);
        }
    }

    private void reserve(Held held, String who, long bytes) {
        check(Rule.MEM_17, held.allocator.tryReserve(bytes), "tryReserve(" + bytes + ") was refused on the allocator of " + who);
        held.reserved += bytes;
        charged(who + " reserved " + bytes + " bytes");
    }

    /** Gives back the first {@code count} of the pages {@code held} holds. */
    private static void giveBack(Held held, int count) {
        List<MemorySegment> given = new ArrayList<>(held.pages.subList(0, count));
        held.pages.subList(0, count).clear();
        held.allocator.release(given);
    }

    /** The engine's counter is up by at least what every open write holds. */
    private void charged(String after) {
        long held = writes.values().stream().mapToLong(Held::bytes).sum();
        long engine = subject.engine.engineUsedBytes() - subject.engineStart;
        if (engine < held) {
            StringBuilder each = new StringBuilder();
            writes.forEach((name, h) -> each.append(each.length() == 0 ? "" : ", ").append(name).append(": ").append(h.pages.size())
                    .append(" pages and ").append(h.reserved).append(" bytes"));
            check(Rule.MEM_17, false, "after " + after + ", the open writes hold " + held + " bytes (" + each + ") but the engine counter is up by "
                    + engine + ": " + (held - engine) + " bytes of pages held are not charged to the engine");
        }
    }
}
