package io.paimongov.connector.flink.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Predicate;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The JobManager's REST API as the tests read it: GET a path, parse the JSON, and wait with a
 * deadline for a response that satisfies a condition. A wait that runs out fails with what was
 * awaited and the last response, so a failure says what the cluster reported, not only that time
 * ran out.
 *
 * <p>Thread-safe: {@link HttpClient} is; the class keeps no other state. Called from the test
 * thread and from {@link ManagedMemoryWatch}'s thread.
 */
final class ClusterRest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration POLL = Duration.ofMillis(200);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    ClusterRest(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /**
     * GETs {@code path} (starting with {@code /}).
     *
     * @throws IOException when the cluster does not answer or answers with an HTTP error (the body
     *     is in the message)
     */
    JsonNode get(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).GET().build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + " -> HTTP " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /**
     * PATCHes {@code path} (Flink's verb for cancelling a job, {@code /jobs/<id>?mode=cancel}).
     *
     * @throws IOException when the cluster does not answer or answers with an HTTP error
     */
    void patch(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                .method("PATCH", HttpRequest.BodyPublishers.noBody()).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException("PATCH " + path + " -> HTTP " + response.statusCode() + ": " + response.body());
        }
    }

    /**
     * Polls {@code path} until its response satisfies {@code done}; returns that response. A request
     * that fails (the cluster still starting) counts as a response that does not satisfy it.
     *
     * @throws AssertionError after {@code patience}, naming {@code what} and the last response or error
     */
    JsonNode await(String what, String path, Duration patience, Predicate<JsonNode> done) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        String last = "no response yet";
        while (true) {
            try {
                JsonNode response = get(path);
                if (done.test(response)) {
                    return response;
                }
                last = response.toString();
            } catch (IOException e) {
                last = e.toString();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + patience.toSeconds() + " s waiting for " + what
                        + "; last GET " + path + ": " + abbreviate(last));
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 4_000 ? s : s.substring(0, 4_000) + "...";
    }
}
