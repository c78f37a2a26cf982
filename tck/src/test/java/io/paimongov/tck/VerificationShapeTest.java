package io.paimongov.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One verification class per subject: each holds exactly the rules whose id names its subject
 * ({@link Rule#subject()}), each rule once, and {@link GovernanceVerification} holds them all.
 */
class VerificationShapeTest {

    private static final Map<String, Class<? extends TckBase>> BY_SUBJECT = Map.of(
            "memory", MemoryVerification.class,
            "write", WriteVerification.class,
            "spill", SpillVerification.class,
            "cancel", CancelVerification.class,
            "metrics", MetricsVerification.class,
            "discovery", DiscoveryVerification.class,
            "compaction", CompactionVerification.class,
            "read", ReadVerification.class);

    @Test
    void eachSubjectsClassHoldsItsRulesAlone() {
        Map<String, Set<Rule>> expected = new TreeMap<>();
        for (Rule rule : Rule.values()) {
            expected.computeIfAbsent(rule.subject(), s -> EnumSet.noneOf(Rule.class)).add(rule);
        }
        Map<String, Set<Rule>> actual = new TreeMap<>();
        BY_SUBJECT.forEach((subject, type) -> actual.put(subject, rulesOf(type)));
        assertEquals(expected, actual);
    }

    @Test
    void theWholeKitHoldsEveryRuleOnce() {
        Map<Rule, Long> methods = Arrays.stream(GovernanceVerification.class.getMethods())
                .filter(m -> m.isAnnotationPresent(Verifies.class))
                .collect(Collectors.groupingBy(m -> m.getAnnotation(Verifies.class).value(), TreeMap::new, Collectors.counting()));
        Map<Rule, Long> once = new TreeMap<>();
        for (Rule rule : Rule.values()) {
            once.put(rule, 1L);
        }
        assertEquals(once, methods);
    }

    private static Set<Rule> rulesOf(Class<?> type) {
        Set<Rule> rules = EnumSet.noneOf(Rule.class);
        for (Method m : type.getMethods()) {
            Verifies v = m.getAnnotation(Verifies.class);
            if (v != null) {
                rules.add(v.value());
            }
        }
        return rules;
    }
}
