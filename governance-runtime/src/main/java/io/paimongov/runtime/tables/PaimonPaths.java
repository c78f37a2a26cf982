package io.paimongov.runtime.tables;

import java.nio.file.Path;

/**
 * The one conversion between a local directory and the path Paimon takes for it.
 *
 * <p>Why it matters: Paimon's {@code org.apache.paimon.fs.Path(String)} (and with it every
 * catalog's {@code warehouse} option, Flink's and Spark's included) parses its string as a path,
 * not as an encoded URI, and never decodes an escape. A {@code java.nio.file.Path#toUri()} string
 * hands it {@code file:/data/my%20wh} for the directory {@code /data/my wh}, and the table lands in
 * a sibling directory literally named {@code my%20wh}. Here a Paimon path is built from the
 * directory's components ({@code file} scheme, the absolute path as it is), and its string form,
 * {@code file:/data/my wh}, is what Paimon parses back to the same directory: spaces, {@code %},
 * {@code #}, {@code ?}, {@code :} and non-ASCII names stay as they are.
 *
 * <p>Non-ASCII names also need a JVM whose file names are UTF-8 ({@code sun.jnu.encoding}, from the
 * locale: {@code LANG=C.UTF-8}); under the POSIX locale the JDK cannot name such a file at all.
 *
 * <p>Stateless; thread-safe. The methods throw only for arguments they document.
 */
public final class PaimonPaths {

    private static final String LOCAL_SCHEME = "file";

    private PaimonPaths() {}

    /** The Paimon path of the local directory or file {@code local} (made absolute and normalized). */
    public static org.apache.paimon.fs.Path of(Path local) {
        return new org.apache.paimon.fs.Path(LOCAL_SCHEME, null, absolute(local));
    }

    /**
     * The string an engine's catalog option ({@code warehouse}, {@code path}) takes for {@code local}:
     * {@code file:} and the absolute path, unescaped, which Paimon parses back to {@code local}.
     */
    public static String option(Path local) {
        return of(local).toString();
    }

    /**
     * The local path of a Paimon path on the local file system ({@code file:} or no scheme), such as
     * a table's {@code location()}.
     *
     * @throws IllegalArgumentException when {@code path} is on another file system
     */
    public static Path local(org.apache.paimon.fs.Path path) {
        java.net.URI uri = path.toUri();
        if (uri.getScheme() != null && !uri.getScheme().equals(LOCAL_SCHEME)) {
            throw new IllegalArgumentException("'" + path + "' is not on the local file system");
        }
        return Path.of(uri.getPath());
    }

    private static String absolute(Path local) {
        return local.toAbsolutePath().normalize().toString();
    }
}
