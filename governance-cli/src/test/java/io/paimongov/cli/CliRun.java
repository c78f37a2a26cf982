package io.paimongov.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One in-process execution of the command line with its exit code and captured output. JSON is
 * parsed with the Jackson that paimon-bundle shades, an independent and strict parser (trailing
 * tokens fail), so "stdout is exactly one JSON object" is checked by someone other than our writer.
 */
record CliRun(int exitCode, String out, String err) {

    private static final ObjectMapper STRICT =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
                GovernanceCli.commandLine()
                        .setOut(new PrintWriter(out, true))
                        .setErr(new PrintWriter(err, true))
                        .execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** Stdout parsed as one JSON value; fails if it is anything more or less. */
    JsonNode json() throws Exception {
        return STRICT.readTree(out);
    }
}
