package io.paimongov.cli;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

/**
 * The jars (or class directories) a vendor names with {@code --classpath}, checked and turned into
 * one class loader whose parent is the CLI's, so {@link java.util.ServiceLoader} finds a provider
 * in a vendor's jar while the SPI, the kit and Paimon stay the CLI's own classes (one copy of each:
 * the vendor's provider must implement the very {@code GovernanceProvider} the kit loads).
 *
 * <p>Each argument may hold several paths joined with the platform's path separator ({@code :} on
 * Unix, {@code ;} on Windows), as {@code java -cp} takes them; empty entries are ignored. {@link
 * #parse} throws {@link IllegalArgumentException} naming the first path that does not exist or is
 * neither a directory nor a jar. Not thread-safe; {@link #close} closes the loader (idempotent).
 */
final class VendorClassPath implements AutoCloseable {

    private final URLClassLoader loader;

    private VendorClassPath(List<URL> urls, ClassLoader parent) {
        this.loader = new URLClassLoader("paimon-governance-vendor", urls.toArray(new URL[0]), parent);
    }

    /** The class path of {@code arguments} (each possibly separator-joined) over {@code parent}. */
    static VendorClassPath parse(List<String> arguments, ClassLoader parent) {
        List<URL> urls = new ArrayList<>();
        for (String argument : arguments) {
            for (String entry : argument.split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    urls.add(url(Path.of(entry)));
                }
            }
        }
        return new VendorClassPath(urls, parent);
    }

    /** Finds the vendor's classes first through the CLI's loader, then in the given jars. */
    ClassLoader loader() {
        return loader;
    }

    @Override
    public void close() throws IOException {
        loader.close();
    }

    private static URL url(Path path) {
        if (!Files.exists(path)) {
            throw new IllegalArgumentException("'" + path + "' does not exist");
        }
        if (!Files.isDirectory(path)) {
            // URLClassLoader skips an unreadable jar silently; say so now instead of "provider not found".
            try {
                new JarFile(path.toFile()).close();
            } catch (IOException e) {
                throw new IllegalArgumentException("'" + path + "' is neither a directory nor a readable jar: " + e.getMessage());
            }
        }
        try {
            // toUri() ends a directory's URL with '/', which URLClassLoader needs to read it as one.
            return path.toAbsolutePath().toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("'" + path + "' cannot be used as a class path entry: " + e.getMessage());
        }
    }
}
