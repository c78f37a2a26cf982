package io.paimongov.reliability;

import java.util.ArrayList;
import java.util.List;

/**
 * The checks of one run of a cell, in the order they were made: each has a phase ({@code after
 * fault}, {@code retry}, ...), a name, whether it passed, the measured value and what was
 * expected. Not thread-safe: one run fills it.
 */
final class Checks {

    record Check(String phase, String name, boolean passed, String value, String expected) {}

    private final List<Check> checks = new ArrayList<>();
    private String phase = "setup";

    /** Checks added from now on belong to {@code name}. */
    Checks phase(String name) {
        this.phase = name;
        return this;
    }

    /** Records a check; returns whether it passed. */
    boolean check(String name, boolean passed, Object value, String expected) {
        checks.add(new Check(phase, name, passed, String.valueOf(value), expected));
        return passed;
    }

    /** Records a check that {@code actual} equals {@code expected}. */
    boolean equal(String name, Object actual, Object expected) {
        return check(name, java.util.Objects.equals(actual, expected), actual, String.valueOf(expected));
    }

    /** Records a check that {@code problems} is empty; the value is the problems or "none". */
    boolean none(String name, List<?> problems, String meaning) {
        return check(name, problems.isEmpty(), problems.isEmpty() ? "none" : abbreviate(problems), meaning);
    }

    private static String abbreviate(List<?> items) {
        List<?> shown = items.size() > 5 ? items.subList(0, 5) : items;
        return items.size() + ": " + shown + (items.size() > 5 ? " ..." : "");
    }

    List<Check> all() {
        return List.copyOf(checks);
    }

    List<Check> failed() {
        return checks.stream().filter(c -> !c.passed()).toList();
    }

    boolean passed() {
        return !checks.isEmpty() && failed().isEmpty();
    }
}
