package io.paimongov.cli;

/**
 * Whether classes of an optional dependency of the CLI are on its class path (the engines, the
 * benchmarks, the charts: {@link AddOn}, {@link LabTool}). Loads nothing and initializes nothing.
 *
 * <p>Stateless and thread-safe.
 */
final class OptionalClasses {

    private OptionalClasses() {
    }

    /** True when the CLI's class loader finds every one of {@code names}. */
    static boolean present(String... names) {
        ClassLoader loader = OptionalClasses.class.getClassLoader();
        for (String name : names) {
            try {
                Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
        return true;
    }
}
