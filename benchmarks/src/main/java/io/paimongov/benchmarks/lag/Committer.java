package io.paimongov.benchmarks.lag;

import java.io.DataInputStream;
import java.io.EOFException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.StreamTableCommit;

/**
 * The committing thread of a lag run: reads the child's frames ({@link Frames}) and commits each
 * checkpoint with Paimon's {@code StreamTableCommit}, as Flink's committer does, recording what each
 * commit added to and took from level 0 ({@link LagRun.Commit}).
 *
 * <p>Thread-safety: {@link #run} on one thread; {@link #start}, {@link #ended}, {@link #failure} and
 * {@link #commits} may be read from any.
 */
final class Committer implements Runnable {
    private final FileStoreTable table;
    private final String user;
    private final DataInputStream frames;
    private final List<LagRun.Commit> commits = new ArrayList<>();
    final CountDownLatch started = new CountDownLatch(1);
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile long start;
    volatile boolean ended;

    Committer(FileStoreTable table, String user, DataInputStream frames) {
        this.table = table;
        this.user = user;
        this.frames = frames;
    }

    @Override
    public void run() {
        try (StreamTableCommit commit = table.newStreamWriteBuilder().withCommitUser(user).newCommit()) {
            for (Frames.Frame f = Frames.read(frames); ; f = Frames.read(frames)) {
                if (f.type() == Frames.START) {
                    start = f.startMillis();
                    started.countDown();
                } else if (f.type() == Frames.CHECKPOINT) {
                    commit.commit(f.checkpoint().id(), f.checkpoint().messages());
                    synchronized (commits) {
                        commits.add(LagRun.Commit.of(System.currentTimeMillis() - start, f.checkpoint()));
                    }
                } else {
                    ended = true;
                    return;
                }
            }
        } catch (EOFException e) {
            // the child ended without its last frame: ChildProcess.failure says why
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        } finally {
            started.countDown();
        }
    }

    List<LagRun.Commit> commits() {
        synchronized (commits) {
            return List.copyOf(commits);
        }
    }
}
