package io.paimongov.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What the CLI says of a missing engine add-on. The test class path is the lab tool's, with every
 * add-on present; DistributionTest (module publishing) runs the archives without them.
 */
class AddOnTest {

    @Test
    void theLabClassPathHasEveryAddOnAndTheLabsLibraries() {
        for (AddOn addOn : AddOn.values()) {
            assertThat(addOn.present()).as(addOn.name).isTrue();
        }
        assertThat(LabTool.present()).isTrue();
        assertThat(OptionalClasses.present("io.paimongov.cli.GovernanceCli", "io.paimongov.cli.no.Such")).isFalse();
    }

    @Test
    void eachEngineAndProviderNameFindsItsAddOn() {
        assertThat(AddOn.named("flink")).contains(AddOn.FLINK);
        assertThat(AddOn.named("spark")).contains(AddOn.SPARK);
        assertThat(AddOn.named("heap")).isEmpty();
    }

    @Test
    void theMessageNamesTheArchiveAndWhereItGoes() {
        String previous = System.getProperty(AddOn.HOME_PROPERTY);
        try {
            System.setProperty(AddOn.HOME_PROPERTY, "/opt/pg");
            assertThat(AddOn.SPARK.missing("engine 'spark'"))
                    .startsWith("engine 'spark' comes with the Spark add-on")
                    .contains("paimon-governance-spark-", ".tar.gz", "/opt/pg/addons/spark/");
            System.clearProperty(AddOn.HOME_PROPERTY);
            assertThat(AddOn.FLINK.missing("provider 'flink'")).contains("paimon-governance-flink-", "addons/flink/")
                    .doesNotContain("/opt/pg");
        } finally {
            if (previous == null) {
                System.clearProperty(AddOn.HOME_PROPERTY);
            } else {
                System.setProperty(AddOn.HOME_PROPERTY, previous);
            }
        }
    }
}
