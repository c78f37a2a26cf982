package io.paimongov.runtime.write;

import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;

/**
 * The data files commit messages add to a table: new files of flushes, files compactions wrote, and
 * changelog files. Stateless.
 */
public final class CommitFiles {

    private CommitFiles() {}

    /** Data files the messages add (flushed and compacted), without changelog files. */
    public static List<DataFileMeta> dataFiles(List<CommitMessage> messages) {
        List<DataFileMeta> files = new ArrayList<>();
        for (CommitMessage m : messages) {
            CommitMessageImpl impl = (CommitMessageImpl) m;
            files.addAll(impl.newFilesIncrement().newFiles());
            files.addAll(impl.compactIncrement().compactAfter());
        }
        return files;
    }

    /** Every file name the messages add: data files and changelog files. */
    public static List<String> names(List<CommitMessage> messages) {
        List<String> names = new ArrayList<>();
        for (DataFileMeta f : dataFiles(messages)) {
            names.add(f.fileName());
        }
        for (CommitMessage m : messages) {
            CommitMessageImpl impl = (CommitMessageImpl) m;
            impl.newFilesIncrement().changelogFiles().forEach(f -> names.add(f.fileName()));
            impl.compactIncrement().changelogFiles().forEach(f -> names.add(f.fileName()));
        }
        return names;
    }

    /** Total bytes of {@code files}. */
    public static long bytes(List<DataFileMeta> files) {
        long bytes = 0;
        for (DataFileMeta f : files) {
            bytes += f.fileSize();
        }
        return bytes;
    }
}
