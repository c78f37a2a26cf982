package io.paimongov.tck;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table modes the kit's write rules run over, and the demo's {@code --table}: how a table of
 * the kit's shape {@code (p INT, k INT, v STRING, n BIGINT)}, partitioned by {@code p}, is set up
 * for each. Primary-key modes have the primary key {@code (p, k)}; append modes none.
 *
 * <p>Which modes the WRITE rules draw from is {@value #PROPERTY} (a comma-separated list of labels;
 * default: every mode whose content can be read back, which leaves out {@link #POSTPONE}: Paimon
 * keeps postpone-bucket rows unreadable until a rescale, so no model can be compared with the
 * table).
 *
 * <p>Immutable; thread-safe.
 */
public enum TableModes {
    /** Primary key, fixed buckets (the kit's original tables). */
    PK("pk", true),
    /** Primary key, {@code bucket = -1}: the governed write assigns buckets and charges the hash index. */
    PK_DYNAMIC("pk-dynamic", true),
    /** Primary key, fixed buckets, {@code deletion-vectors.enabled = true}. */
    PK_DV("pk-dv", true),
    /** Primary key, fixed buckets, {@code changelog-producer = lookup}. */
    PK_LOOKUP("pk-lookup", true),
    /** No primary key, {@code bucket = -1}. */
    APPEND("append", false),
    /** No primary key, fixed buckets, {@code bucket-key = k}. */
    APPEND_BUCKETED("append-bucketed", false),
    /** Primary key, {@code bucket = -2}: rows stay in the postpone bucket, unreadable until a rescale. */
    POSTPONE("postpone", true);

    /** The system property that narrows or widens the modes the WRITE rules draw from. */
    public static final String PROPERTY = "governance.tck.table-modes";

    private final String label;
    private final boolean primaryKey;

    TableModes(String label, boolean primaryKey) {
        this.label = label;
        this.primaryKey = primaryKey;
    }

    /** The name on the command line and in {@value #PROPERTY}. */
    public String label() {
        return label;
    }

    /** Whether the table has the primary key {@code (p, k)}. */
    public boolean primaryKey() {
        return primaryKey;
    }

    /** Whether a plain read shows what was committed ({@link #POSTPONE} does not). */
    public boolean readable() {
        return this != POSTPONE;
    }

    /** Whether {@code merge-engine} applies (primary keys) and rows may repeat keys and delete. */
    public boolean updates() {
        return primaryKey;
    }

    /**
     * The table options for this mode; {@code buckets} is used by the fixed-bucket modes.
     *
     * @throws IllegalArgumentException when {@code buckets} is less than 1
     */
    public Map<String, String> options(int buckets) {
        if (buckets < 1) {
            throw new IllegalArgumentException("buckets must be at least 1: " + buckets);
        }
        Map<String, String> o = new HashMap<>();
        String fixed = Integer.toString(buckets);
        switch (this) {
            case PK -> o.put("bucket", fixed);
            case PK_DYNAMIC, APPEND -> o.put("bucket", "-1");
            case PK_DV -> {
                o.put("bucket", fixed);
                o.put("deletion-vectors.enabled", "true");
            }
            case PK_LOOKUP -> {
                o.put("bucket", fixed);
                o.put("changelog-producer", "lookup");
            }
            case APPEND_BUCKETED -> {
                o.put("bucket", fixed);
                o.put("bucket-key", "k");
            }
            case POSTPONE -> o.put("bucket", "-2");
        }
        return o;
    }

    /**
     * The mode labelled {@code label}.
     *
     * @throws IllegalArgumentException naming the labels there are
     */
    public static TableModes of(String label) {
        String l = label.trim().toLowerCase(Locale.ROOT);
        for (TableModes m : values()) {
            if (m.label.equals(l)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown table mode '" + label + "'; the modes are " + labels());
    }

    /** Every label, in declaration order. */
    public static List<String> labels() {
        List<String> labels = new ArrayList<>();
        for (TableModes m : values()) {
            labels.add(m.label);
        }
        return labels;
    }

    /**
     * The modes the WRITE rules draw from: {@value #PROPERTY} if set, else every readable mode.
     *
     * @throws IllegalArgumentException for an unknown label, or a mode that cannot be read back
     */
    public static List<TableModes> forWriteRules() {
        String value = System.getProperty(PROPERTY);
        List<TableModes> modes = new ArrayList<>();
        if (value == null || value.isBlank()) {
            for (TableModes m : values()) {
                if (m.readable()) {
                    modes.add(m);
                }
            }
            return modes;
        }
        for (String label : value.split(",")) {
            TableModes m = of(label);
            if (!m.readable()) {
                throw new IllegalArgumentException("'" + PROPERTY + "' names '" + m.label
                        + "', whose rows cannot be read back to compare with the model");
            }
            modes.add(m);
        }
        return modes;
    }
}
