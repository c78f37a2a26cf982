package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * No false failures: the correct reference provider passes every rule at every size the CLI
 * accepts ({@code --rows}, {@code --tries}, {@code --write-tries}: any whole number from 1), small
 * and large. Each size of {@value #SIZES} (default {@value #DEFAULT_SIZES}) runs the whole kit once;
 * a size is {@code rows:tries:write-tries}. The deep setting is in docs/tck.md.
 */
class SizeSweepTest {

    static final String SIZES = "governance.tck.selftest.sizes";
    /** The smallest size the CLI accepts, and the rows at which MEM-13 used to fail the reference provider. */
    static final String DEFAULT_SIZES = "1:1:1,2000:5:3";

    @TestFactory
    Stream<DynamicTest> theReferenceProviderPassesEveryRuleAtEverySize() {
        return sizes().stream().map(size -> DynamicTest.dynamicTest("reference at " + size, () -> {
            TckReport report = withSettings(size.settings(),
                    () -> TckRunner.runDiscovered("reference", getClass().getClassLoader(), Set.of(), null));
            List<String> notPassed = new ArrayList<>();
            for (TckReport.RuleResult rule : report.rules()) {
                if (rule.status() != TckReport.Status.PASSED) {
                    notPassed.add(rule.id() + " " + rule.status() + ": " + rule.message());
                }
            }
            assertEquals(Rule.values().length, report.rules().size(), "rules reported: " + report.rules().size());
            assertTrue(notPassed.isEmpty(), "at " + size + " the reference provider did not pass:\n" + String.join("\n", notPassed));
        }));
    }

    /** One size of the sweep, as the CLI's options give it. */
    record Size(int rows, int tries, int writeTries) {
        Map<String, String> settings() {
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put(TckSettings.ROWS, Integer.toString(rows));
            settings.put(TckSettings.TRIES, Integer.toString(tries));
            settings.put(TckSettings.WRITE_TRIES, Integer.toString(writeTries));
            return settings;
        }

        @Override
        public String toString() {
            return "--rows " + rows + " --tries " + tries + " --write-tries " + writeTries;
        }
    }

    static List<Size> sizes() {
        String value = System.getProperty(SIZES, "");
        List<Size> sizes = new ArrayList<>();
        for (String size : (value.isBlank() ? DEFAULT_SIZES : value).split(",")) {
            String[] parts = size.strip().split(":");
            if (parts.length != 3) {
                throw new IllegalArgumentException("'" + SIZES + "': '" + size + "' is not rows:tries:write-tries");
            }
            try {
                sizes.add(new Size(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + SIZES + "': '" + size + "' is not three whole numbers", e);
            }
        }
        return sizes;
    }

    /** Runs {@code body} with {@code settings} as system properties, the previous values restored after. */
    static <T> T withSettings(Map<String, String> settings, java.util.concurrent.Callable<T> body) throws Exception {
        Map<String, String> previous = new LinkedHashMap<>();
        settings.forEach((key, value) -> previous.put(key, System.setProperty(key, value)));
        try {
            return body.call();
        } finally {
            previous.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
        }
    }
}
