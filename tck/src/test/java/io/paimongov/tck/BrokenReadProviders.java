package io.paimongov.tck;

import io.paimongov.allocator.support.PagedAllocator;
import io.paimongov.spi.SegmentAllocator.ConsumerKind;

/**
 * Providers broken for governed reads only: each was written before the read kinds existed and
 * handles its engine's consumers in a switch that does the wrong thing for a kind it does not know
 * (ALLOC.16 asks it to treat one as OTHER). Writes never reserve those kinds, so every writing rule
 * passes them.
 */
public final class BrokenReadProviders {

    private BrokenReadProviders() {}

    static boolean readKind(ConsumerKind kind) {
        return kind == ConsumerKind.READ || kind == ConsumerKind.READ_OUTPUT;
    }

    /** Grants a kind it does not know without taking it from the engine (and gives nothing back for it). */
    public static final class ReadKindsFree extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-read-kinds-free";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                protected boolean reserveBytes(long bytes, ConsumerKind consumer) {
                    return readKind(consumer) || super.reserveBytes(bytes, consumer);
                }

                @Override
                protected void unreserveBytes(long bytes, ConsumerKind consumer) {
                    if (!readKind(consumer)) {
                        super.unreserveBytes(bytes, consumer);
                    }
                }
            };
        }
    }

    /** Takes a kind it does not know from the engine, but drops its release: the engine keeps it. */
    public static final class DropsReadReleases extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-drops-read-releases";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                protected void unreserveBytes(long bytes, ConsumerKind consumer) {
                    if (!readKind(consumer)) {
                        super.unreserveBytes(bytes, consumer);
                    }
                }
            };
        }
    }

    /** Drops the release of the read's output only: the engine keeps what the engine's own consumer let go of. */
    public static final class LosesOutputReleases extends ReferenceProvider {
        @Override
        public String name() {
            return "broken-loses-output-releases";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                protected void unreserveBytes(long bytes, ConsumerKind consumer) {
                    if (consumer != ConsumerKind.READ_OUTPUT) {
                        super.unreserveBytes(bytes, consumer);
                    }
                }
            };
        }
    }
}
