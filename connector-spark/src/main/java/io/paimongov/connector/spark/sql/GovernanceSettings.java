package io.paimongov.connector.spark.sql;

import io.paimongov.runtime.config.Counts;
import io.paimongov.runtime.config.GovernanceOptions;
import io.paimongov.spark.SparkGovernanceProvider;
import java.io.Serializable;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code governance.*} settings of one write through the catalog, merged from three places,
 * later ones winning: the catalog's defaults ({@code spark.sql.catalog.<name>.governance.*}), the
 * table's options ({@code governance.*} in {@code TBLPROPERTIES}, stored with the table's Paimon
 * options), and the write's options ({@code df.writeTo(..).option("governance.*", ..)}).
 *
 * <p>Checked where they are given (catalog start, {@code CREATE}/{@code ALTER TABLE}, every write)
 * and again merged, on the driver, before any task runs ({@link GovernanceOptions#forProvider} for
 * provider {@code spark}): a key the runtime does not know, a bad value, a {@code
 * governance.provider} other than {@code spark} or a {@code governance.spark.*} key other than the
 * catalog's own {@value #WRITE_CHANNELS} (the Spark provider has none) is an {@link
 * IllegalArgumentException} naming the key. {@value #WRITE_CHANNELS} never reaches the runtime.
 *
 * <p>Immutable; serializable into tasks.
 */
final class GovernanceSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    static final String PREFIX = "governance.";
    /**
     * How many writer channels (and so write tasks) a keyed table's write is spread over; default
     * {@code spark.sql.shuffle.partitions}.
     */
    static final String WRITE_CHANNELS = "governance.spark.write-channels";

    private final Map<String, String> governance;
    private final int channels;

    private GovernanceSettings(Map<String, String> governance, int channels) {
        this.governance = governance;
        this.channels = channels;
    }

    /** The {@code governance.*} entries of {@code options}, keys as given. */
    static Map<String, String> governanceKeys(Map<String, String> options) {
        Map<String, String> out = new TreeMap<>();
        options.forEach((k, v) -> {
            if (k.startsWith(PREFIX)) {
                out.put(k, v);
            }
        });
        return out;
    }

    /**
     * Checks {@code options} (the {@code governance.*} keys of one place) on their own.
     *
     * @throws IllegalArgumentException naming the first bad key
     */
    static void check(Map<String, String> options) {
        of(governanceKeys(options));
    }

    /** The settings of a write: {@code catalog}, then {@code table}, then {@code write}, later winning. */
    static GovernanceSettings merge(Map<String, String> catalog, Map<String, String> table, Map<String, String> write) {
        Map<String, String> merged = new TreeMap<>(governanceKeys(catalog));
        merged.putAll(governanceKeys(table));
        merged.putAll(governanceKeys(write));
        return of(merged);
    }

    private static GovernanceSettings of(Map<String, String> given) {
        GovernanceOptions options = GovernanceOptions.forProvider(SparkGovernanceProvider.NAME, given);
        // The Spark provider has no keys of its own: under governance.spark. only the catalog's.
        options.providerOptions().rejectUnknownKeys(SparkGovernanceProvider.NAME, List.of(WRITE_CHANNELS));
        Map<String, String> governance = new TreeMap<>(options.asMap());
        String channelsText = governance.remove(WRITE_CHANNELS);
        int channels = channelsText == null ? 0 : Counts.positive(WRITE_CHANNELS, channelsText);
        return new GovernanceSettings(Collections.unmodifiableMap(governance), channels);
    }

    /** The options for the runtime (without the catalog's own key); the provider is set by the task write. */
    Map<String, String> governance() {
        return governance;
    }

    /** {@value #WRITE_CHANNELS}, or 0 when not set. */
    int channels() {
        return channels;
    }
}
