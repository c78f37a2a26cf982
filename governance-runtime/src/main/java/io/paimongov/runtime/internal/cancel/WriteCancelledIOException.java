package io.paimongov.runtime.internal.cancel;

import java.io.IOException;

/**
 * A cancelled write's file stream refused to go on: thrown by the streams of the files a governed
 * write reads and writes (data, changelog, index and, while a commit has not written its snapshot,
 * manifest files) at their next check once the write's {@link CancellationToken} is cancelled.
 *
 * <p>An {@link IOException}, so that Paimon unwinds as from any failed I/O: a rolling file writer
 * aborts and deletes its partial file, a compaction task fails, a commit that has not written its
 * snapshot deletes its manifests. The governed write finds it in the cause chain of what Paimon
 * throws and gives its caller {@link io.paimongov.spi.WriteCancelledException} with the token's
 * reason instead; callers of the runtime never see this type.
 */
public final class WriteCancelledIOException extends IOException {

    private static final long serialVersionUID = 1L;

    public WriteCancelledIOException(String reason) {
        super("write cancelled: " + reason);
    }
}
