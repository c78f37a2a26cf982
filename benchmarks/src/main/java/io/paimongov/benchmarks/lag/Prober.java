package io.paimongov.benchmarks.lag;

/**
 * The probe thread of a lag run: a reading of the table every probe interval ({@link LagProbe}), a
 * row cross-check every n-th, each reading added to the run's {@link LagSeries}.
 *
 * <p>Thread-safety: {@link #run} on one thread; {@link #series} and {@link #stop} from any; the
 * counts and {@link #failure} are read after a join.
 */
final class Prober implements Runnable {
    private final LagProbe probe;
    private final LagRun.Settings s;
    private final long start;
    private final LagSeries.Builder series = new LagSeries.Builder();
    private volatile boolean stopped;
    volatile String failure;
    int mismatches;
    int crossChecks;

    Prober(LagProbe probe, LagRun.Settings s, long start) {
        this.probe = probe;
        this.s = s;
        this.start = start;
    }

    void stop() {
        stopped = true;
    }

    synchronized LagSeries series() {
        return series.build();
    }

    @Override
    public void run() {
        long checked = LagProbe.NONE;
        try {
            for (int n = 0; !stopped; n++) {
                LagProbe.Reading r = probe.read();
                long now = System.currentTimeMillis();
                synchronized (this) {
                    series.add(now - start, now - Math.max(start, r.newestTs()), r.level0Files());
                }
                if (s.crossCheckEvery() > 0 && n % s.crossCheckEvery() == 0 && r.snapshotId() >= 0) {
                    long byRows = probe.newestByRows(r, checked);
                    crossChecks++;
                    if (byRows != r.newestTs()) {
                        mismatches++;
                    }
                    checked = byRows;
                }
                Thread.sleep(Math.max(1, start + (n + 1) * s.probeMillis() - System.currentTimeMillis()));
            }
        } catch (InterruptedException e) {
            // stopped
        } catch (Throwable t) {
            failure = t.getClass().getSimpleName() + ": " + t.getMessage();
        }
    }
}
