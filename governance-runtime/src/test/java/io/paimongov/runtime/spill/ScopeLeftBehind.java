package io.paimongov.runtime.spill;

import io.paimongov.spi.EngineResources.SpillLocations;
import java.nio.file.Path;
import java.util.List;

/**
 * A process that opens a spill scope, makes it as a write's first spill does, prints its directory
 * and dies without deleting it ({@code Runtime.halt}: no shutdown hook, as a killed process).
 * Argument: the spill root. For {@code SpillScopeTest}.
 */
final class ScopeLeftBehind {

    private ScopeLeftBehind() {}

    public static void main(String[] args) {
        SpillScope scope = SpillScope.open(SpillLocations.of(List.of(Path.of(args[0])), Long.MAX_VALUE), "left behind");
        System.out.println(scope.make());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
