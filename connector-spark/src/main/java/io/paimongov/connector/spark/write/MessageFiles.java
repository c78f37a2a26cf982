package io.paimongov.connector.spark.write;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.index.IndexPathFactory;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataFilePathFactory;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.utils.DataFilePathFactories;
import org.apache.paimon.utils.FileStorePathFactory;
import org.apache.paimon.utils.IndexFilePathFactories;

/**
 * Deletes the files that commit messages add to a table, for messages that will not be committed
 * (the connector's aborts).
 *
 * <p>Paimon 1.4.2's {@code TableCommit.abort} deletes a message's new data and changelog files and
 * its compaction's outputs, but not the index files the messages add (a dynamic-bucket table's hash
 * index, deletion vectors) nor a data file's extra files (its file index): those stayed in the
 * table's directory until Paimon's orphan-file cleanup. The files deleted here are the ones Paimon
 * checks for before it commits messages again ({@code TableCommitImpl.checkFilesExistence}), plus
 * the compaction's changelog files that its abort deletes. Every one of them has a name no other
 * write uses; the files a message deletes (compaction inputs, replaced index files) are not touched.
 *
 * <p><b>Thread-safety:</b> stateless; called on the driver. <b>May throw:</b> the first
 * {@link IOException} of a deletion, after trying every file.
 */
final class MessageFiles {

    private MessageFiles() {}

    /** Deletes every file {@code messages} add to {@code table}; a file already gone is skipped. */
    static void delete(FileStoreTable table, List<CommitMessage> messages) throws IOException {
        FileIO fileIO = table.fileIO();
        IOException first = null;
        for (Path file : added(table, messages)) {
            try {
                fileIO.delete(file, false);
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The paths of the data, extra, changelog and index files {@code messages} add. */
    private static List<Path> added(FileStoreTable table, List<CommitMessage> messages) {
        FileStorePathFactory paths = table.store().pathFactory();
        DataFilePathFactories dataPaths = new DataFilePathFactories(paths);
        IndexFilePathFactories indexPaths = new IndexFilePathFactories(paths);
        List<Path> files = new ArrayList<>();
        for (CommitMessage message : messages) {
            CommitMessageImpl m = (CommitMessageImpl) message;
            DataFilePathFactory data = dataPaths.get(m.partition(), m.bucket());
            IndexPathFactory index = indexPaths.get(m.partition(), m.bucket());
            List<DataFileMeta> dataFiles = new ArrayList<>(m.newFilesIncrement().newFiles());
            dataFiles.addAll(m.newFilesIncrement().changelogFiles());
            dataFiles.addAll(m.compactIncrement().compactAfter());
            dataFiles.addAll(m.compactIncrement().changelogFiles());
            dataFiles.forEach(f -> files.addAll(f.collectFiles(data)));
            List<IndexFileMeta> indexFiles = new ArrayList<>(m.newFilesIncrement().newIndexFiles());
            indexFiles.addAll(m.compactIncrement().newIndexFiles());
            indexFiles.forEach(f -> files.add(index.toPath(f)));
        }
        return files;
    }
}
