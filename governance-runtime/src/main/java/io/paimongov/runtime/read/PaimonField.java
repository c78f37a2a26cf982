package io.paimongov.runtime.read;

import java.lang.reflect.Field;

/**
 * A private field of a Paimon class that the read replaces by reflection (Paimon 1.4 keeps the
 * merge of its merge-on-read and the lookup store of its local query in final fields), looked up
 * once; absent on a Paimon without it, which the class that needs it refuses when it opens.
 *
 * <p>Immutable; thread-safe.
 */
final class PaimonField {

    private final Class<?> owner;
    private final String name;
    private final Field field;

    private PaimonField(Class<?> owner, String name, Field field) {
        this.owner = owner;
        this.name = name;
        this.field = field;
    }

    /** {@code owner}'s declared field {@code name}, made accessible, or an absent one. */
    static PaimonField of(Class<?> owner, String name) {
        try {
            Field f = owner.getDeclaredField(name);
            f.setAccessible(true);
            return new PaimonField(owner, name, f);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return new PaimonField(owner, name, null);
        }
    }

    /**
     * Refuses a Paimon without the field.
     *
     * @param what what needs it, for the message ({@code "governed reads"})
     * @throws UnsupportedOperationException naming the class and the field when this Paimon has none
     */
    void require(String what) {
        if (field == null) {
            throw new UnsupportedOperationException(
                    "this Paimon's " + owner.getSimpleName() + " has no '" + name + "' field: " + what + " need Paimon 1.4");
        }
    }

    /**
     * Sets the field of {@code target} to {@code value}.
     *
     * @throws UnsupportedOperationException when the JVM refuses it
     */
    void set(Object target, Object value) {
        try {
            field.set(target, value);
        } catch (IllegalAccessException e) {
            throw new UnsupportedOperationException("cannot set Paimon's " + owner.getSimpleName() + "." + name, e);
        }
    }
}
