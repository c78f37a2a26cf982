package io.paimongov.cli;

import java.util.Arrays;
import java.util.Optional;

/**
 * The engine add-ons of the operator distribution (docs/distribution.md). The core archive runs
 * {@code providers}, {@code demo} and {@code tck} with the heap and off-heap providers, and {@code
 * clean}; the Flink and the Spark engine, with their providers and connectors, come as archives of
 * their own that unpack into the core's {@code addons/} directory. The lab tool (the source tree's
 * {@code ./paimon-governance}) always has both.
 *
 * <p>Code that needs an engine asks here before it touches one of the engine's classes, so a missing
 * add-on is a bad argument naming its archive ({@link #missing}), never a {@link NoClassDefFoundError}.
 *
 * <p>Thread-safe and stateless; the answers do not change during a run, since the class path is
 * fixed when the JVM starts.
 */
enum AddOn {
    FLINK("flink", "Flink", "org.apache.flink.table.api.bridge.java.StreamTableEnvironment",
            "io.paimongov.connector.flink.sql.GovernedCatalogFactory", "io.paimongov.flink.FlinkGovernanceProvider"),
    SPARK("spark", "Spark", "org.apache.spark.sql.SparkSession",
            "io.paimongov.connector.spark.sql.GovernedSparkCatalog", "io.paimongov.spark.SparkGovernanceProvider");

    /** The system property the distribution's launcher sets to the directory holding bin/ and lib/. */
    static final String HOME_PROPERTY = "paimon-governance.home";

    /** The add-on's name: its directory under {@code addons/}, its engine and its provider. */
    final String name;
    private final String engine;
    private final String[] classes;

    AddOn(String name, String engine, String... classes) {
        this.name = name;
        this.engine = engine;
        this.classes = classes;
    }

    /** The add-on that brings the provider or engine {@code name}, if one does. */
    static Optional<AddOn> named(String name) {
        return Arrays.stream(values()).filter(a -> a.name.equals(name)).findFirst();
    }

    /** Whether the engine, our provider on it and our connector for it are all on the class path. */
    boolean present() {
        return OptionalClasses.present(classes);
    }

    /**
     * Why {@code what} cannot run here and what to install: the archive by name and where it goes.
     * For example {@code "provider 'flink' comes with the Flink add-on, which is not installed: ..."}.
     */
    String missing(String what) {
        String version = GovernanceCli.class.getPackage().getImplementationVersion();
        String archive = "paimon-governance-" + name + "-" + (version == null ? "<version>" : version) + ".tar.gz";
        String home = System.getProperty(HOME_PROPERTY);
        String where = home == null
                ? "unpack it beside the core archive, so that its addons/" + name + "/ lands in the directory holding bin/ and lib/"
                : "unpack it where the core archive was unpacked, so that " + home + "/addons/" + name + "/ holds it";
        return what + " comes with the " + engine + " add-on, which is not installed: " + archive + "; " + where
                + " (docs/distribution.md)";
    }
}
