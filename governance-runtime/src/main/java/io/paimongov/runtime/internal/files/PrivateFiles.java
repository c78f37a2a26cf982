package io.paimongov.runtime.internal.files;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Directories and files that only their owner may read or write, where the file system has POSIX
 * permissions: the spill scope's directory and every file the runtime creates in it. Apart from
 * {@code SpillScope} so that the spill channels' I/O manager, which creates files in a scope, can
 * use it without the scope's class opening its internals. Stateless; safe from any thread.
 */
public final class PrivateFiles {

    /** Owner-only directory: rwx------. */
    public static final Set<PosixFilePermission> DIR_PERMISSIONS = PosixFilePermissions.fromString("rwx------");

    /** Owner-only file: rw-------. */
    public static final Set<PosixFilePermission> FILE_PERMISSIONS = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {}

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    /** Creates {@code dir} (its parent must exist) with {@link #DIR_PERMISSIONS} where it can. */
    public static void createPrivateDirectory(Path dir) throws IOException {
        if (posix()) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIR_PERMISSIONS));
        } else {
            Files.createDirectory(dir);
        }
    }

    /**
     * Creates {@code file} readable and writable by the owner only (0600 where the file system has
     * POSIX permissions). If it already exists (Paimon may open a channel path again), its
     * permissions are set to 0600 instead; it is never followed out of the scope because the caller
     * checked the path is inside it and nobody else can write in a 0700 directory.
     */
    public static void createPrivateFile(Path file) throws IOException {
        if (!posix()) {
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
            return;
        }
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE_PERMISSIONS));
        } catch (FileAlreadyExistsException e) {
            Files.setPosixFilePermissions(file, FILE_PERMISSIONS);
        }
    }
}
