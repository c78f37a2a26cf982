package io.paimongov.runtime.write;

import java.lang.reflect.Field;

/**
 * Private fields of Paimon's classes that the governed write reaches by reflection, looked up once
 * in a static initializer of the class that needs them.
 *
 * <p>Stateless; thread-safe.
 */
final class PaimonFields {

    private PaimonFields() {}

    /**
     * {@code owner}'s declared field {@code name}, made accessible.
     *
     * @param neededBy what needs it, for the message when this Paimon does not have it
     * @throws ExceptionInInitializerError when {@code owner} has no such field (another Paimon
     *     version): the class that looks it up cannot work, and says why
     */
    static Field field(Class<?> owner, String name, String neededBy) {
        try {
            Field f = owner.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError("Paimon's " + owner.getName() + " has no field '" + name + "'; " + neededBy + " needs it");
        }
    }
}
