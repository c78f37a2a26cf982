package io.paimongov.spi;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A request for memory or spill disk that the budget cannot cover, even after the runtime made
 * room: the one failure a caller may answer with a larger budget (docs/spi.md, clause ERR.1; an
 * allocator's refusal, ALLOC.3). Carries the numbers to act on.
 *
 * <p>Immutable; unchecked so it passes through Paimon's {@code IOException} signatures.
 */
public final class ResourceExhaustedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What ran out. */
    public enum Resource {
        MEMORY,
        SPILL_DISK
    }

    /** One holder of the resource and how many bytes it holds. */
    public record Holder(String name, long bytes) {
        public Holder {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String toString() {
            return name + "=" + bytes;
        }
    }

    private final Resource resource;
    private final String requester;
    private final long requestedBytes;
    private final long reservedBytes;
    private final long capacityBytes;
    private final List<Holder> largestHolders;

    /**
     * What an allocator throws when its engine cannot give {@code requestedBytes}: memory, with
     * the engine's own use and capacity, no holders known and no remedy.
     */
    public static ResourceExhaustedException memory(String requester, long requestedBytes, long usedBytes, long capacityBytes) {
        return new ResourceExhaustedException(Resource.MEMORY, requester, requestedBytes, usedBytes, capacityBytes, List.of(), null);
    }

    /**
     * The six-argument form allocators used before {@link #memory}: as the full form without a
     * remedy.
     *
     * @deprecated since 0.1.0, removed in the version after it: an allocator refuses with {@link
     *     #memory}{@code (requester, requestedBytes, usedBytes, capacityBytes)} (docs/tck.md,
     *     "Changelog"); the runtime uses the full form.
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public ResourceExhaustedException(
            Resource resource, String requester, long requestedBytes, long reservedBytes, long capacityBytes, List<Holder> largestHolders) {
        this(resource, requester, requestedBytes, reservedBytes, capacityBytes, largestHolders, null);
    }

    /**
     * The full form, as the runtime throws it: {@code remedy} (what to change, naming the option or
     * the engine setting) is appended to the message after {@code "; "}; null for none.
     */
    public ResourceExhaustedException(
            Resource resource,
            String requester,
            long requestedBytes,
            long reservedBytes,
            long capacityBytes,
            List<Holder> largestHolders,
            String remedy) {
        super(message(resource, requester, requestedBytes, reservedBytes, capacityBytes, largestHolders)
                + (remedy == null ? "" : "; " + remedy));
        this.resource = Objects.requireNonNull(resource, "resource");
        this.requester = Objects.requireNonNull(requester, "requester");
        this.requestedBytes = requestedBytes;
        this.reservedBytes = reservedBytes;
        this.capacityBytes = capacityBytes;
        this.largestHolders = List.copyOf(largestHolders);
    }

    private static String message(
            Resource resource,
            String requester,
            long requested,
            long reserved,
            long capacity,
            List<Holder> holders) {
        String what = resource == Resource.MEMORY ? "memory" : "spill disk";
        String top =
                holders.isEmpty()
                        ? "none known"
                        : holders.stream().map(Holder::toString).collect(Collectors.joining(", "));
        return what
                + " exhausted: '"
                + requester
                + "' asked for "
                + requested
                + " bytes; "
                + reserved
                + " of "
                + capacity
                + " bytes are reserved, "
                + Math.max(0, capacity - reserved)
                + " free; largest holders: "
                + top;
    }

    public Resource resource() {
        return resource;
    }

    public String requester() {
        return requester;
    }

    public long requestedBytes() {
        return requestedBytes;
    }

    public long reservedBytes() {
        return reservedBytes;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    /** The largest holders at the time of the failure, largest first. */
    public List<Holder> largestHolders() {
        return largestHolders;
    }
}
