package io.paimongov.tck;

import java.util.Set;
import org.junit.jupiter.api.Test;

class TmpH1Test {
    @Test
    void run() throws Exception {
        if (System.getProperty("h1.pairs") != null) {
            for (String pair : System.getProperty("h1.pairs").split(";")) {
                String[] pr = pair.split("=");
                Rule rule = Rule.byId(pr[1]).orElseThrow();
                long t0 = System.nanoTime();
                TckReport report = TckRunner.runDiscovered(pr[0], getClass().getClassLoader(), Set.of(rule), null);
                TckReport.RuleResult r = report.rule(rule.id());
                System.out.println("H1RESULT " + pr[0] + " " + rule.id() + " " + r.status() + " " + (System.nanoTime() - t0) / 1_000_000 + " ms :: "
                        + String.valueOf(r.message()).lines().findFirst().orElse(""));
            }
        }
        if (System.getProperty("h1.write") != null) {
            for (String name : System.getProperty("h1.write").split(";")) {
                var p = io.paimongov.runtime.Providers.load(name, getClass().getClassLoader());
                for (String budget : new String[] {"6m", "256m"}) {
                    Workload w = new Workload(42, 20000, 20000, 2, 4, "deduplicate", "parquet", 100).in(TableModes.PK);
                    try (TckSubject s = new TckSubject(p, TckSubject::defaultEngine, io.paimongov.runtime.config.Sizes.parse("b", budget))) {
                        TckRun run = TckRun.run(s, w, "t", s.options("governance.memory.page-size", "16k"), TckRun.Plan.none());
                        boolean same = run.outcome == TckRun.Outcome.COMMITTED && Workload.sameContent(Workload.read(run.table), w.model());
                        System.out.println("H1WRITE " + name + " " + budget + " " + run.describe() + " same=" + same + " spill=" + run.metrics.spillBytes()
                                + " pages=" + run.metrics.pageBytes() + " peak=" + run.metrics.peakReservedBytes());
                    }
                }
            }
        }
    }
}
