package io.paimongov.tck;

import io.paimongov.allocator.support.PagedAllocator;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * Providers broken between the allocator and its engine: each keeps its own accounting right, so
 * only a rule that reads the engine's counter at the right moment sees it. The first three show
 * only when the engine is tighter than the budget (MEM-11 to MEM-13).
 */
public final class BrokenEngineProviders {

    private BrokenEngineProviders() {}

    /** Lets the engine's refusal escape as the engine's own error instead of ResourceExhaustedException. */
    public static final class UntypedRefusal extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-untyped-refusal";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                protected boolean reserveBytes(long bytes) {
                    if (!engine.take(bytes)) {
                        throw new IllegalStateException("engine out of memory: " + bytes + " bytes asked, "
                                + (engine.capacity - engine.used.get()) + " free");
                    }
                    return true;
                }
            };
        }
    }

    /**
     * Checks only its own capacity and takes from the engine without the engine's limit: one write
     * per engine never shows it; several writes on one engine together pass the engine's memory.
     */
    public static final class EngineOvercommit extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-engine-overcommit";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                protected boolean reserveBytes(long bytes) {
                    engine.used.addAndGet(bytes);
                    return true;
                }
            };
        }
    }

    /**
     * When the engine has less free than asked it grants what it has, as Spark's does; this
     * allocator refuses the request but keeps that part, so every refusal of a shrunk engine leaks.
     */
    public static final class PartialGrantKept extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-partial-grant-kept";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                protected boolean reserveBytes(long bytes) {
                    if (engine.take(bytes)) {
                        return true;
                    }
                    long part = engine.capacity - engine.used.get();
                    if (part > 0) {
                        engine.take(part);
                    }
                    return false;
                }
            };
        }
    }

    /**
     * Reserves from the engine before it checks its own capacity and does not give the engine's
     * part back when it then refuses: its own books stay right, the engine loses memory.
     */
    public static final class RefusalKeepsEnginePart extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-refusal-keeps-engine-part";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                public boolean tryReserve(long bytes) {
                    if (super.tryReserve(bytes)) {
                        return true;
                    }
                    engine.take(Math.min(bytes, engine.capacity - engine.used.get()));
                    return false;
                }
            };
        }
    }

    /**
     * Takes its pages from the heap without asking the engine (reservations it does take from the
     * engine): its own books and its capacity are right, and the engine's counter moves, so only a
     * check of what it holds against what the engine had for it shows that its pages do not come
     * from the engine.
     */
    public static final class PagesOutsideEngine extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-pages-outside-engine";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            // An engine kind, which says its page call does the engine's accounting; its page call
            // is the heap's.
            return new EngineKind(pageSize, capacity, engine) {
                @Override
                protected void takePages(int count, List<MemorySegment> into) {
                    for (int i = 0; i < count; i++) {
                        into.add(MemorySegment.wrap(new byte[pageSize()]));
                    }
                }

                @Override
                protected void givePages(List<MemorySegment> pages) {}
            };
        }
    }
}
