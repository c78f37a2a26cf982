package io.paimongov.connector.flink.cluster;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * Samples every registered TaskManager's managed memory from the cluster's REST metrics ({@code
 * Status.Flink.Memory.Managed.Used} and {@code .Total}, the slot {@code MemoryManager}s' own
 * counters), on a thread of its own, until closed. The figures are Flink's, never the governed
 * writer's accounting. A sample is a point in time (the JobManager refreshes them every {@code
 * metrics.fetcher.update-interval}), so a peak between two fetches is not seen: the tests hold the
 * job at a known point to see the writer's pages, and check every sample against the total.
 *
 * <p>Thread-safe: the sampling thread writes, the test thread reads; the collections are concurrent,
 * the counters atomic.
 */
final class ManagedMemoryWatch implements AutoCloseable {

    private static final String METRICS = "/metrics?get=Status.Flink.Memory.Managed.Used,Status.Flink.Memory.Managed.Total";

    /** One reading of one TaskManager. */
    record Sample(String taskManager, long used, long total) {}

    private final ClusterRest rest;
    private final Map<String, Long> maxUsed = new ConcurrentHashMap<>();
    private final List<Sample> overTotal = new CopyOnWriteArrayList<>();
    private final AtomicLong samples = new AtomicLong();
    private final AtomicLong maxTotal = new AtomicLong(-1);
    private final Thread thread;
    private volatile boolean stopped;

    ManagedMemoryWatch(ClusterRest rest) {
        this.rest = rest;
        this.thread = new Thread(this::run, "managed-memory-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!stopped) {
            try {
                sampleOnce();
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                // A TaskManager killed between the listing and its metrics: the next round lists the live ones.
            }
        }
    }

    private void sampleOnce() throws IOException, InterruptedException {
        for (JsonNode tm : rest.get("/taskmanagers").path("taskmanagers")) {
            String id = tm.path("id").asText();
            Long used = null;
            Long total = null;
            for (JsonNode metric : rest.get("/taskmanagers/" + id + METRICS)) {
                long value = Long.parseLong(metric.path("value").asText());
                if (metric.path("id").asText().endsWith(".Used")) {
                    used = value;
                } else {
                    total = value;
                }
            }
            if (used != null && total != null) {
                Sample sample = new Sample(id, used, total);
                samples.incrementAndGet();
                maxTotal.accumulateAndGet(total, Math::max);
                maxUsed.merge(id, used, Math::max);
                if (used > total) {
                    overTotal.add(sample);
                }
            }
        }
    }

    /** The largest {@code Managed.Used} seen for the TaskManager {@code id}, or -1 when none was read. */
    long maxUsed(String id) {
        return maxUsed.getOrDefault(id, -1L);
    }

    /** Every sample whose {@code Used} exceeded its {@code Total}. */
    List<Sample> overTotal() {
        return new ArrayList<>(overTotal);
    }

    /** How many samples were read (with both figures). */
    long sampleCount() {
        return samples.get();
    }

    /** The largest {@code Managed.Total} seen over all TaskManagers. */
    long maxTotal() {
        return maxTotal.get();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join();
    }
}
