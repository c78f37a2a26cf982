package io.paimongov.runtime.read;

import java.io.IOException;
import org.apache.paimon.reader.RecordReader;

/**
 * A reader that looks for a cancel before each batch, and runs {@code onClose} once after the
 * reader it wraps closed (or failed to).
 */
final class CheckedReader<T> implements RecordReader<T> {

    private final RecordReader<T> reader;
    private final CancelCheck cancel;
    private final Runnable onClose;
    private boolean closed;

    CheckedReader(RecordReader<T> reader, CancelCheck cancel, Runnable onClose) {
        this.reader = reader;
        this.cancel = cancel;
        this.onClose = onClose;
    }

    @Override
    public RecordIterator<T> readBatch() throws IOException {
        cancel.check();
        return reader.readBatch();
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            reader.close();
        } finally {
            onClose.run();
        }
    }
}
