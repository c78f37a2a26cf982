package io.paimongov.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.paimongov.fixtures.Json;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * One in-process execution of the command line with its exit code and captured output. JSON is
 * parsed by the fixtures' strict Jackson reader (trailing tokens fail), so "stdout is exactly one
 * JSON object" is checked by a parser, not by the code that wrote it.
 */
record CliRun(int exitCode, String out, String err) {

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
        return Json.parse(out);
    }
}
