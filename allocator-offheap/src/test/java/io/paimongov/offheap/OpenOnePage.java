package io.paimongov.offheap;

import io.paimongov.spi.EngineEnvironment;
import io.paimongov.spi.EngineResources;
import io.paimongov.runtime.config.GovernanceOptions;
import java.util.ArrayList;
import java.util.List;
import org.apache.paimon.memory.MemorySegment;

/**
 * A child JVM's whole program for {@link AddOpensTest}: opens the provider, takes and returns one
 * page, and prints {@code ok}. What open() throws escapes main: the JVM prints it and exits 1.
 */
public final class OpenOnePage {

    private OpenOnePage() {}

    public static void main(String[] args) {
        EngineResources resources =
                new OffheapGovernanceProvider().open(GovernanceOptions.defaults().providerOptions(), EngineEnvironment.standalone());
        List<MemorySegment> pages = new ArrayList<>();
        resources.memory().allocate(pages, 1);
        pages.get(0).putLong(0, 42L);
        resources.memory().release(pages);
        resources.close();
        System.out.println("ok");
    }
}
