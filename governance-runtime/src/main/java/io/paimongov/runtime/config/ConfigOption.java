package io.paimongov.runtime.config;

import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One configuration key, defined once: its name, the type of its value, its default, its range
 * and its meaning, and the parser that turns the given text into the value and enforces the range.
 * {@link GovernanceOptions} parses every key through its definition ({@link RuntimeOptions}), and
 * the key table in {@code docs/configuration.md} is printed from the same definitions ({@code
 * ConfigReferenceTest} fails when the page differs).
 *
 * <p>Immutable; thread-safe. {@link #valueIn} throws {@link IllegalArgumentException} naming the
 * key and the text when the text is not a valid value.
 *
 * @param <T> the parsed value's type
 * @param key the key's name
 * @param type what a value is, for people: {@code size}, {@code boolean}, ...
 * @param defaultText the text parsed when the key is not given; null for no default
 * @param defaultDoc the default as the documentation gives it (Markdown)
 * @param range the accepted values as the documentation gives them (Markdown)
 * @param meaning what the key does (Markdown, one sentence or two)
 * @param parser turns the given text into the value
 */
record ConfigOption<T>(
        String key,
        String type,
        Supplier<String> defaultText,
        String defaultDoc,
        String range,
        String meaning,
        Parser<T> parser) {

    /** Turns a key's text into its value. */
    @FunctionalInterface
    interface Parser<T> {
        /**
         * Parses {@code text}, given for {@code key}; {@code others} supplies the values of the keys
         * this one's range depends on (the budget's minimum is counted in pages).
         *
         * @throws IllegalArgumentException naming {@code key} and {@code text} when it is not valid
         */
        T parse(String key, String text, Values others);
    }

    /** The parsed values of the other keys of the same configuration. */
    interface Values {
        /** For a parse that depends on no other key. */
        Values NONE = new Values() {
            @Override
            public <U> U get(ConfigOption<U> option) {
                throw new IllegalStateException("'" + option.key() + "' is not available here");
            }
        };

        /** The value of {@code option}, parsed from its text or its default; null when it has neither. */
        <U> U get(ConfigOption<U> option);
    }

    ConfigOption {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(meaning, "meaning");
        Objects.requireNonNull(parser, "parser");
    }

    /** Starts the definition of {@code key}, whose values are documented as {@code type}. */
    static <T> Builder<T> define(String key, String type, Parser<T> parser) {
        return new Builder<>(key, type, parser);
    }

    /**
     * The value of this key in {@code given}: its text parsed, else the default parsed; null when
     * the key is not given and has no default.
     *
     * @throws IllegalArgumentException naming the key and the text when it is not a valid value
     */
    T valueIn(Map<String, String> given, Values others) {
        String text = given.get(key);
        if (text == null) {
            text = defaultText == null ? null : defaultText.get();
        }
        return text == null ? null : parser.parse(key, text, others);
    }

    /**
     * Parses {@code text} given under another name that shares this key's values, such as the
     * table option {@code compaction.task-threads}; the message names {@code otherKey}.
     */
    T parseAs(String otherKey, String text) {
        return parser.parse(otherKey, text, Values.NONE);
    }

    @Override
    public String toString() {
        return key;
    }

    /** The parts of a definition; {@link #build()} requires a default (or none, said so), range and meaning. */
    static final class Builder<T> {
        private final String key;
        private final String type;
        private final Parser<T> parser;
        private Supplier<String> defaultText;
        private String defaultDoc;
        private String range;
        private String meaning;

        private Builder(String key, String type, Parser<T> parser) {
            this.key = Objects.requireNonNull(key, "key");
            this.type = Objects.requireNonNull(type, "type");
            this.parser = parser;
        }

        /** The text parsed when the key is not given, documented as itself in code style. */
        Builder<T> defaultValue(String text) {
            return computedDefault(() -> text, "`" + text + "`");
        }

        /**
         * The text parsed when the key is not given, documented as itself followed by {@code note}
         * in parentheses.
         */
        Builder<T> defaultValue(String text, String note) {
            return computedDefault(() -> text, "`" + text + "` (" + note + ")");
        }

        /** A default read when the options are parsed (a system property), documented as {@code doc}. */
        Builder<T> computedDefault(Supplier<String> text, String doc) {
            this.defaultText = text;
            this.defaultDoc = doc;
            return this;
        }

        /** No default value: the key's value is null when not given; {@code doc} says what happens then. */
        Builder<T> noDefault(String doc) {
            this.defaultText = null;
            this.defaultDoc = doc;
            return this;
        }

        Builder<T> range(String range) {
            this.range = range;
            return this;
        }

        Builder<T> meaning(String meaning) {
            this.meaning = meaning;
            return this;
        }

        ConfigOption<T> build() {
            Objects.requireNonNull(defaultDoc, "default");
            return new ConfigOption<>(key, type, defaultText, defaultDoc, range, meaning, parser);
        }
    }
}
