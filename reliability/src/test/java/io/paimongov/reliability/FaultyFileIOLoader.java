package io.paimongov.reliability;

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileIOLoader;
import org.apache.paimon.fs.Path;

/**
 * Registers {@link FaultyFileIO} for the {@code faulty://} scheme through Paimon's own discovery
 * ({@code META-INF/services/org.apache.paimon.fs.FileIOLoader}), so Paimon builds it for every
 * table under a {@code faulty:///...} warehouse exactly as it builds a real file system.
 */
public final class FaultyFileIOLoader implements FileIOLoader {

    private static final long serialVersionUID = 1L;

    @Override
    public String getScheme() {
        return FaultyFileIO.SCHEME;
    }

    @Override
    public FileIO load(Path path) {
        return new FaultyFileIO();
    }
}
