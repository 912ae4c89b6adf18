import { runLoad } from './loadgen.js';
import { describeRun } from './util.js';

/**
 * Interleaved measurement rounds: in each round every target gets a c=1 load, then a c=16 load, so the
 * targets share the machine's noise. With `rotate`, each round starts with the next target.
 *
 * @param targets - `{ key, driver, pid, watch? }` each: `pid` is sampled as `t`, `watch` (label → pid) adds
 *   other processes (R7: the CLI behind the relay)
 * @param cfg - `{ rounds, c1Calls, c1Ms, c16Calls, c16Ms }`
 * @param options - `{ log, firstId, rotate }`
 * @returns `{ runs: { [key]: { c1: Run[], c16: Run[] } }, nextId }`
 */
export async function measureRounds(targets, cfg, { log, firstId, rotate = false }) {
  let id = firstId;
  const load = async (t, concurrency, maxCalls, maxMs) => {
    const r = await runLoad({
      driver: t.driver,
      concurrency,
      maxCalls,
      maxMs,
      watch: { ...t.watch, t: t.pid },
      firstId: id,
    });
    id += r.calls;
    return r;
  };
  const runs = Object.fromEntries(targets.map((t) => [t.key, { c1: [], c16: [] }]));
  for (let round = 0; round < cfg.rounds; round++) {
    const shift = rotate ? round % targets.length : 0;
    for (const t of [...targets.slice(shift), ...targets.slice(0, shift)]) {
      const c1 = await load(t, 1, cfg.c1Calls, cfg.c1Ms);
      const c16 = await load(t, 16, cfg.c16Calls, cfg.c16Ms);
      runs[t.key].c1.push(c1);
      runs[t.key].c16.push(c16);
      log(`  round ${round + 1} ${t.key}: c=1 ${describeRun(c1)} | c=16 ${describeRun(c16)}`);
    }
  }
  return { runs, nextId: id };
}
