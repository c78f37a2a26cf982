package io.paimongov.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a provider is told when a write opens: the write's budget, page size and spill settings,
 * already validated by the runtime, and the keys the runtime does not own (by convention {@code
 * governance.<provider>.*}), which the provider validates itself (docs/spi.md, clause PROV.3).
 *
 * <p>Immutable value; thread-safe. The runtime builds it from its configuration; a vendor's own
 * tests build one with {@link #builder(long, int)}.
 */
public final class ProviderOptions {

    /** The smallest page size a write uses. */
    public static final int MIN_PAGE_SIZE = 4 << 10;
    /** The largest page size a write uses. */
    public static final int MAX_PAGE_SIZE = 16 << 20;

    private final long budgetBytes;
    private final int pageSize;
    private final List<Path> spillDirs;
    private final boolean spillDirsGiven;
    private final long spillMaxBytes;
    private final Map<String, String> providerKeys;

    private ProviderOptions(Builder b) {
        this.budgetBytes = b.budgetBytes;
        this.pageSize = b.pageSize;
        this.spillDirs = b.spillDirs;
        this.spillDirsGiven = b.spillDirsGiven;
        this.spillMaxBytes = b.spillMaxBytes;
        this.providerKeys = Map.copyOf(b.providerKeys);
    }

    /**
     * Options with {@code budgetBytes} and {@code pageSize}, spilling under {@code java.io.tmpdir}
     * without a byte limit until told otherwise.
     *
     * @throws IllegalArgumentException when the page size is not a power of two from {@value
     *     #MIN_PAGE_SIZE} to {@value #MAX_PAGE_SIZE} bytes or the budget is below one page
     */
    public static Builder builder(long budgetBytes, int pageSize) {
        if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || Integer.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException(
                    "pageSize " + pageSize + " must be a power of two from " + MIN_PAGE_SIZE + " to " + MAX_PAGE_SIZE);
        }
        if (budgetBytes < pageSize) {
            throw new IllegalArgumentException("budgetBytes " + budgetBytes + " is below one page of " + pageSize);
        }
        return new Builder(budgetBytes, pageSize);
    }

    /** The write's whole memory budget in bytes: pages plus reservations. */
    public long budgetBytes() {
        return budgetBytes;
    }

    /** The page size the runtime asks for: a power of two. A provider whose engine fixes another says so. */
    public int pageSize() {
        return pageSize;
    }

    /** Spill roots as absolute real paths; at least one. */
    public List<Path> spillDirs() {
        return spillDirs;
    }

    /**
     * Whether the spill roots were configured for this write; false when they are the default, so
     * a provider may put its engine's own temp dirs first.
     */
    public boolean spillDirsGiven() {
        return spillDirsGiven;
    }

    /** The spill byte budget; {@link Long#MAX_VALUE} when unlimited. */
    public long spillMaxBytes() {
        return spillMaxBytes;
    }

    /** The value of a key the runtime does not own, such as {@code governance.flink.managed-memory-weight}. */
    public Optional<String> raw(String key) {
        return Optional.ofNullable(providerKeys.get(key));
    }

    /** Every key the runtime does not own, with its value, sorted. */
    public Map<String, String> providerKeys() {
        return new TreeMap<>(providerKeys);
    }

    /**
     * Rejects every key under {@code governance.<provider>.} that is not in {@code known}.
     *
     * @throws IllegalArgumentException naming the first unknown key and the known ones
     */
    public void rejectUnknownKeys(String provider, List<String> known) {
        String prefix = "governance." + provider + ".";
        providerKeys.keySet().stream()
                .filter(k -> k.startsWith(prefix) && !known.contains(k))
                .sorted()
                .findFirst()
                .ifPresent(k -> {
                    throw new IllegalArgumentException(
                            "unknown option '" + k + "' for provider '" + provider + "'; known: "
                                    + (known.isEmpty() ? "none" : String.join(", ", known)));
                });
    }

    @Override
    public String toString() {
        return "ProviderOptions{budgetBytes=" + budgetBytes + ", pageSize=" + pageSize + ", spillDirs=" + spillDirs
                + ", spillMaxBytes=" + spillMaxBytes + ", providerKeys=" + providerKeys + "}";
    }

    /** Builds {@link ProviderOptions}; not thread-safe. */
    public static final class Builder {
        private final long budgetBytes;
        private final int pageSize;
        private List<Path> spillDirs = List.of(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
        private boolean spillDirsGiven;
        private long spillMaxBytes = Long.MAX_VALUE;
        private final Map<String, String> providerKeys = new TreeMap<>();

        private Builder(long budgetBytes, int pageSize) {
            this.budgetBytes = budgetBytes;
            this.pageSize = pageSize;
        }

        /** Spill roots; {@code given} says whether they were configured (see {@link #spillDirsGiven()}). */
        public Builder spillDirs(List<Path> dirs, boolean given) {
            if (dirs.isEmpty()) {
                throw new IllegalArgumentException("spillDirs must name at least one directory");
            }
            this.spillDirs = dirs.stream().map(p -> p.toAbsolutePath().normalize()).toList();
            this.spillDirsGiven = given;
            return this;
        }

        /** The spill byte budget, positive; {@link Long#MAX_VALUE} for none. */
        public Builder spillMaxBytes(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("spillMaxBytes must be positive: " + bytes);
            }
            this.spillMaxBytes = bytes;
            return this;
        }

        /** A key the runtime does not own, passed to the provider as given. */
        public Builder providerKey(String key, String value) {
            providerKeys.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public ProviderOptions build() {
            return new ProviderOptions(this);
        }
    }
}
