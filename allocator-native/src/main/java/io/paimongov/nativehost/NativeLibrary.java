package io.paimongov.nativehost;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Finds the provider's JNI library, {@code lib}{@value #NAME}: the file named by the system property
 * {@value #PATH_PROPERTY}, else the one the build put beside this class for the platform ({@code
 * io/paimongov/nativehost/<os>-<arch>/}). From a jar it is copied once into {@code
 * java.io.tmpdir/paimon-governance-native-<hash>/}, named by the hash of its bytes, so that
 * processes share one copy and a changed library gets a new one. JNI loads it ({@link
 * #loadForJni()}); FFM only looks up the reference host in it ({@link #file()}).
 *
 * <p>Found at most once per class loader, loaded at most once; thread-safe.
 */
final class NativeLibrary {

    static final String NAME = "paimon_governance_jni";
    static final String PATH_PROPERTY = "paimon.governance.native.jni-library";

    private record Found(Path file, String failure) {}

    private static final Found FOUND = find();
    private static boolean loaded;

    private NativeLibrary() {}

    /**
     * Loads the library for JNI, once.
     *
     * @throws IllegalStateException naming the platform and what is missing when it cannot be
     *     loaded (a build without a C compiler, a platform the build did not compile for)
     */
    static synchronized void loadForJni() {
        if (loaded) {
            return;
        }
        Path file = file();
        try {
            System.load(file.toString());
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            throw new IllegalStateException("the native provider could not load its JNI library " + file + ": " + e, e);
        }
        loaded = true;
    }

    /**
     * The library's file.
     *
     * @throws IllegalStateException naming the platform and what is missing when there is none
     */
    static Path file() {
        if (FOUND.failure() != null) {
            throw new IllegalStateException(FOUND.failure());
        }
        return FOUND.file();
    }

    /** Whether the library is there for this platform. */
    static boolean available() {
        return FOUND.failure() == null;
    }

    /** Why the library is not there, or null when it is. */
    static String failure() {
        return FOUND.failure();
    }

    /** {@code linux-x86_64}, {@code darwin-aarch64}, ...: the directory the build writes to (src/build/cc.sh). */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String o = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "darwin" : os.replace(' ', '_');
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("arm64") ? "aarch64" : arch;
        return o + "-" + a;
    }

    private static Found find() {
        String explicit = System.getProperty(PATH_PROPERTY);
        try {
            if (explicit != null && !explicit.isBlank()) {
                Path file = Path.of(explicit).toAbsolutePath();
                return Files.isRegularFile(file) ? new Found(file, null)
                        : new Found(null, "-D" + PATH_PROPERTY + "=" + explicit + " names no file");
            }
            String resource = platform() + "/" + System.mapLibraryName(NAME);
            URL url = NativeLibrary.class.getResource(resource);
            if (url == null) {
                return new Found(null, "the native provider has no JNI library for " + platform() + " (resource io/paimongov/nativehost/"
                        + resource + " is not in allocator-native's jar: the jar was built without a C compiler, or for"
                        + " another platform); build allocator-native on this platform with a C compiler (cc) on PATH,"
                        + " or name a built library with -D" + PATH_PROPERTY + "=PATH (docs/native.md)");
            }
            return new Found(url.getProtocol().equals("file") ? Path.of(url.toURI()) : copied(url), null);
        } catch (IOException | URISyntaxException | RuntimeException e) {
            return new Found(null, "the native provider could not find its JNI library "
                    + (explicit != null ? "'" + explicit + "' (-D" + PATH_PROPERTY + ")" : "for " + platform()) + ": " + e);
        }
    }

    /** The library's bytes in a file of their own, named by their hash; written once, by an atomic move. */
    private static Path copied(URL url) throws IOException {
        byte[] bytes;
        try (InputStream in = url.openStream()) {
            bytes = in.readAllBytes();
        }
        String hash;
        try {
            hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new UncheckedIOException(new IOException(e));
        }
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "paimon-governance-native-" + hash);
        Path file = dir.resolve(System.mapLibraryName(NAME));
        if (Files.isRegularFile(file) && Files.size(file) == bytes.length) {
            return file;
        }
        Files.createDirectories(dir);
        Path part = Files.createTempFile(dir, "lib", ".part");
        try {
            Files.write(part, bytes);
            try {
                Files.setPosixFilePermissions(part, PosixFilePermissions.fromString("r-xr-xr-x"));
            } catch (UnsupportedOperationException notPosix) {
                // Loadable as written.
            }
            Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(part);
        }
        return file;
    }
}
