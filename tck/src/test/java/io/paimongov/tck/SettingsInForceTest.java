package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every report records the settings a run had, and flags those that make the kit check less than
 * at its defaults: fewer tries, rows, rounds or table modes, a looser cancel bound, a rule time
 * limit above a rule's own; a stricter or shorter one is recorded, not flagged.
 */
class SettingsInForceTest {

    private static final TckSettings DEFAULTS = new TckSettings(50, 3, 20_000, 1_000, 20_000, 0, 0);

    @Test
    void theDefaultsWeakenNothingAndEverySettingIsRecorded() {
        List<TckReport.Setting> settings = withProperties(Map.of(), () -> SettingsInForce.of(DEFAULTS, Set.of(Rule.MEM_1, Rule.WRITE_1)));
        assertEquals(List.of(TckSettings.TRIES, TckSettings.WRITE_TRIES, TckSettings.ROWS, TckSettings.RACE_ROUNDS, TckSettings.OVERLAP_ROUNDS,
                TckSettings.OVERLAPS, TckSettings.CANCEL_BOUND_MS, TableModes.PROPERTY, TckSettings.RULE_TIMEOUT_S, TckSettings.RUN_TIMEOUT_S),
                settings.stream().map(TckReport.Setting::key).toList());
        assertEquals(List.of(), settings.stream().filter(TckReport.Setting::weakens).toList());
        TckReport.Setting ruleLimit = settings.get(8);
        // MEM-1, a property of the allocator, has a minute; WRITE-1, which writes tables, three.
        assertEquals("each rule's own: 60 to 180 s", ruleLimit.value());
        assertEquals(ruleLimit.value(), ruleLimit.defaultValue());
    }

    @Test
    void fewerTriesRowsRoundsAndModesWeakenTheKit() {
        TckSettings smaller = new TckSettings(5, 1, 3_000, 1_000, 2_000, 0, 0);
        List<TckReport.Setting> settings = withProperties(
                Map.of(TckSettings.OVERLAP_ROUNDS, "10", TckSettings.OVERLAPS, "30000", TableModes.PROPERTY, "pk,append"),
                () -> SettingsInForce.of(smaller, Set.of(Rule.MEM_1)));
        assertEquals(Map.of(
                        TckSettings.TRIES, "5", TckSettings.WRITE_TRIES, "1", TckSettings.ROWS, "3000", TckSettings.RACE_ROUNDS, "2000",
                        TckSettings.OVERLAP_ROUNDS, "10", TableModes.PROPERTY, "pk,append"),
                weakened(settings));
        TckReport.Setting overlaps = settings.get(5);
        assertEquals("30000 20000 false", overlaps.value() + " " + overlaps.defaultValue() + " " + overlaps.weakens());
    }

    /** A bound raised lets more through; lowered, it only fails more. */
    @Test
    void aLooserCancelBoundOrALongerRuleLimitWeakensTheKitAStricterOneDoesNot() {
        TckSettings looser = new TckSettings(50, 3, 20_000, 5_000, 20_000, 600, 100_000);
        assertEquals(Map.of(TckSettings.CANCEL_BOUND_MS, "5000", TckSettings.RULE_TIMEOUT_S, "600"),
                weakened(withProperties(Map.of(), () -> SettingsInForce.of(looser, Set.of(Rule.MEM_1, Rule.WRITE_1)))));
        TckSettings stricter = new TckSettings(50, 3, 20_000, 200, 20_000, 30, 60);
        List<TckReport.Setting> settings = withProperties(Map.of(), () -> SettingsInForce.of(stricter, Set.of(Rule.MEM_1, Rule.WRITE_1)));
        assertEquals(Map.of(), weakened(settings));
        assertEquals("30", settings.get(8).value());
        assertEquals("60", settings.get(9).value());
    }

    private static Map<String, String> weakened(List<TckReport.Setting> settings) {
        return settings.stream().filter(TckReport.Setting::weakens).collect(Collectors.toMap(TckReport.Setting::key, TckReport.Setting::value));
    }

    private static <T> T withProperties(Map<String, String> properties, java.util.function.Supplier<T> body) {
        List<String> keys = List.of(TckSettings.OVERLAP_ROUNDS, TckSettings.OVERLAPS, TableModes.PROPERTY);
        Map<String, String> before = new java.util.HashMap<>();
        for (String key : keys) {
            before.put(key, System.getProperty(key));
            if (properties.containsKey(key)) {
                System.setProperty(key, properties.get(key));
            } else {
                System.clearProperty(key);
            }
        }
        try {
            return body.get();
        } finally {
            before.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
        }
    }
}
