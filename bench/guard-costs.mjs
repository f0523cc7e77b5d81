/**
 * What each default guard and check costs a call (`npm run bench:instructions -- --guards`). A target such as
 * 1.10x the floor leaves a margin of instructions above it; the guards a server has by default, and the checks
 * it makes of every call, spend part of that margin on work the floor does not do at all. Counting the same
 * server with each of them switched off in turn (through public options only), and then with all of them off,
 * says what each spends and how much is left for the rest of the protocol path (the standard-header checks,
 * `_meta`, the dispatcher, the answer's encoding), so a target that the floor plus that work cannot meet is
 * shown to be so by the counts, not by argument.
 *
 * The servers (bench/server; each count is per call, an optimising compile left out), each but `defaults`
 * being `off` with one change:
 * - `defaults`: no security option; `off`: rate limits and concurrency cap off (the `off` and stdio rows);
 * - `timeoutOff`: `toolTimeoutMs: false`; `outputOff`: `output: false` (the output guard);
 * - `depthOff`: `maxDepth` too large for any message of the load, so the depth pre-check on the text is
 *   skipped; `schemasOff`: `add` with `{ type: 'object' }` in and no `outputSchema` (validation);
 * - `bare`: all four changes at once; `floor`: the raw node:http (or stdio) server.
 * Over stdio: `off`, `bare` and the floor.
 */

const fmt = (n) => Math.round(n).toLocaleString('en')

/** The steps, in the order of the table: the key of the count with it off, its label, guard or check. */
export const STEPS = [
  ['timeoutOff', 'tool timeout', 'guard'],
  ['outputOff', 'output guard', 'guard'],
  ['depthOff', 'depth pre-check', 'check'],
  ['schemasOff', 'input and output validation', 'check'],
]

/**
 * Each step's cost: the difference its switching off made to `off` (rate limits and cap: `defaults` − `off`).
 * Steps measured alone need not add up to all of them off together (they share work, and each count moves by
 * a few hundred instructions from run to run); `together` is `off` − `bare`.
 */
export function guardCosts({ http, stdio }, target) {
  const margin = http.floor * (target - 1)
  const steps = STEPS.map(([key, label, kind]) => ({ label, kind, cost: http.off - http[key] }))
  const rateLimits = http.defaults - http.off
  const together = http.off - http.bare
  const stdioMargin = stdio.floor * (target - 1)
  return {
    margin,
    rateLimits,
    steps,
    together,
    rest: http.bare - http.floor,
    left: margin - rateLimits - together,
    stdio: {
      margin: stdioMargin,
      together: stdio.off - stdio.bare,
      rest: stdio.bare - stdio.floor,
      left: stdioMargin - (stdio.off - stdio.bare),
    },
  }
}

/** The markdown lines for the counts and what they say. */
export function guardCostLines(counts, target) {
  const { http, stdio } = counts
  const costs = guardCosts(counts, target)
  const row = (label, n, floor, cost = '') => `| ${label} | ${fmt(n)} | ${fmt(n - floor)} | ${cost} |`
  const times = `${target.toFixed(2)}x`
  return [
    '| what each default guard and check costs a tools/call (per call, compile left out) | instructions | above the floor | the step costs |',
    '| --- | ---: | ---: | ---: |',
    row('HTTP, raw node floor', http.floor, http.floor),
    row('HTTP, defaults', http.defaults, http.floor),
    row('HTTP, rate limits and concurrency cap off (`off`)', http.off, http.floor, fmt(costs.rateLimits)),
    ...STEPS.map(([key, label], index) =>
      row(`HTTP, \`off\` and ${label} off`, http[key], http.floor, fmt(costs.steps[index].cost)),
    ),
    row('HTTP, `off` and all four off', http.bare, http.floor, `${fmt(costs.together)} together`),
    row('stdio, raw node floor', stdio.floor, stdio.floor),
    row('stdio, rate limits off (the stdio row)', stdio.off, stdio.floor),
    row('stdio, and all four off', stdio.bare, stdio.floor, `${fmt(costs.stdio.together)} together`),
    '',
    `At ${times} the floor, an HTTP call has ${fmt(costs.margin)} instructions above it. The rate limits and ` +
      `cap spend ${fmt(costs.rateLimits)} of them and the four steps ${fmt(costs.together)}, which leaves ` +
      `${fmt(costs.left)} for the rest of the path; with all of them off, that rest costs ${fmt(costs.rest)}. ` +
      `Over stdio the margin is ${fmt(costs.stdio.margin)}, the four steps spend ${fmt(costs.stdio.together)}, ` +
      `which leaves ${fmt(costs.stdio.left)}, and the rest costs ${fmt(costs.stdio.rest)}.`,
  ]
}
