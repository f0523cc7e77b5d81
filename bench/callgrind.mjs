/**
 * The pieces of `bench/instructions.mjs` that do not need a server: its arguments, reading a callgrind output,
 * and switching a running callgrind's counting on and off. Kept apart so a test can check them alone.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process'

export const USAGE = `Instructions per call, counted under callgrind (valgrind), for toolwire and the raw node:http floor.

  npm run bench:instructions [-- options]

  --quick             fewer calls (2,000 uncounted + 500 counted per row instead of 10,000 + 10,000;
                      50 streams, 50 changes): a rough figure, V8 still optimising while it counts
  --calls=N           measured calls per row (default 10000: three counts of 2,000 calls of one
                      build spread over about 700 instructions a call, of 10,000 over about 300)
  --warmup=N          uncounted calls before them (default 10000: with 2,000, V8's optimising compiler
                      still ran during the count, about 40% of toolwire's counted instructions)
  --concurrency=N     calls in flight (default 8)
  --streams=N         listen streams for the fan-out row (default 100)
  --changes=N         measured tool-list changes in the fan-out row (default 200; as many uncounted first)
  --only=ROWS         comma-separated subset: defaults,off,tools1000,stdio,listen,cold,cold1000
  --keep=DIR          keep the callgrind outputs in DIR (for callgrind_annotate)
  --out=DIR           where the JSON and the table go (default results/)
  --profile           also say where a call's instructions go: each server runs with node's
                      --perf-basic-prof, its JIT code is named from that map, and each row lists the
                      functions whose self instructions per call differ most from the floor's
                      (writing the map adds to the counts: take figures from a run without it)
  --guards            also count what each default guard costs a call: the HTTP server with the rate
                      limits and concurrency cap, the tool timeout and the output guard switched off one
                      by one and all together, and stdio with and without the timeout and output guard
  --help              this text

Needs valgrind (callgrind_control comes with it); without it, prints why and exits 0.`

export const ROWS = ['defaults', 'off', 'tools1000', 'stdio', 'listen', 'cold', 'cold1000']

const NUMBERS = ['calls', 'warmup', 'concurrency', 'streams', 'changes']
const FLAGS = ['quick', 'help', 'profile', 'guards']
const STRINGS = ['only', 'keep', 'out']

/** `--key=value` and `--flag` arguments into options; anything unknown or malformed throws. */
export function parseArgs(argv) {
  const given = new Map()
  for (const arg of argv) {
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg} (see --help)`)
    const [key = '', ...rest] = arg.slice(2).split('=')
    const value = rest.length > 0 ? rest.join('=') : undefined
    if (FLAGS.includes(key)) {
      if (value !== undefined) throw new Error(`--${key} takes no value`)
    } else if (NUMBERS.includes(key)) {
      const number = Number(value)
      if (value === undefined || !Number.isInteger(number) || number < 1)
        throw new Error(`--${key} wants a positive integer, not ${value ?? 'nothing'}`)
    } else if (STRINGS.includes(key)) {
      if (value === undefined || value === '') throw new Error(`--${key} wants a value`)
    } else throw new Error(`unknown option --${key} (see --help)`)
    given.set(key, value ?? true)
  }
  const quick = given.has('quick')
  const only = given.has('only') ? String(given.get('only')).split(',') : ROWS
  for (const row of only)
    if (!ROWS.includes(row)) throw new Error(`--only: ${row} is none of ${ROWS.join(', ')}`)
  const number = (key, full, small) => Number(given.get(key) ?? (quick ? small : full))
  return {
    help: given.has('help'),
    quick,
    profile: given.has('profile'),
    guards: given.has('guards'),
    calls: number('calls', 10_000, 500),
    warmup: number('warmup', 10_000, 2000),
    concurrency: number('concurrency', 8, 8),
    streams: number('streams', 100, 50),
    changes: number('changes', 200, 50),
    coldRuns: quick ? 1 : 5,
    only,
    keep: given.get('keep'),
    out: given.get('out') ?? 'results',
  }
}

/**
 * The instructions (Ir) a callgrind output counted: its `totals:` line, in the column of Ir among the
 * `events:`. The `summary:` line near the top is no substitute: with counting switched on and off by
 * `callgrind_control`, callgrind 3.19 writes `summary: 0` there and the real sum in `totals:` at the end.
 */
export function totalInstructions(text) {
  const events = /^events:\s*(.+)$/m.exec(text)
  if (!events) throw new Error('not a callgrind output: no events line')
  const names = events[1].trim().split(/\s+/)
  const column = names.indexOf('Ir')
  if (column < 0) throw new Error(`the callgrind output counted no Ir (events: ${names.join(' ')})`)
  const totals = /^totals:\s*(.+)$/m.exec(text)
  if (!totals) throw new Error('no totals in the callgrind output')
  const value = Number(totals[1].trim().split(/\s+/)[column] ?? Number.NaN)
  if (!Number.isFinite(value)) throw new Error(`unreadable totals: ${totals[1]}`)
  return value
}

/**
 * V8's optimising compiler runs on helper threads, and callgrind counts every thread: a TurboFan compile that
 * happens to fall inside the counted calls adds millions of instructions to one run and none to the next
 * (seen: 2,200 to 15,900 per call). The compile is a one-off cost of warming up, not a cost per call, so the
 * bench reports each count with and without it. This is the compile job's entry point on its thread.
 */
export const COMPILE_FUNCTION = 'v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal'

/**
 * At every start V8 picks a random hash seed and searches for primes from it (`detail::sprp`), so this step
 * costs a process anything from 4 to 16 million instructions by chance (seen here). Both servers pay it, it
 * does nothing either of them asked for, and it would scatter a cold start by more than the gap being
 * measured: the cold rows leave it out.
 */
export const HASH_SEED_FUNCTION = 'v8::internal::HashSeed::InitializeRoots'

/**
 * Where a cold start's instructions go, by the V8 entry point that spends them (inclusive; they do not
 * overlap): the first parse of each module's whole text, the compiles of functions on their first call, and
 * the compiles of regular expressions on their first run.
 */
export const COLD_PARTS = {
  parse: 'v8::ScriptCompiler::CompileModule',
  lazyCompile: 'v8::internal::Runtime_CompileLazy',
  regExpCompile: 'v8::internal::RegExpImpl::CompileIrregexp',
}

/**
 * The instructions spent inside `name` (inclusive, every overload), read from `callgrind_annotate
 * --inclusive=yes` output: `  12,978,547 (30.67%)  ???:v8::internal::…::RunInternal() [/usr/bin/node]`. 0 when
 * the function never ran. A function that calls itself appears once more as `name'2`, which is not counted
 * again.
 */
export function inclusiveIn(annotated, name) {
  let total = 0
  for (const line of annotated.split('\n')) {
    const match = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?\S*?:(.+?)\(/.exec(line)
    if (match && match[2] === name && !RECURSION.test(line)) total += Number(match[1].replaceAll(',', ''))
  }
  return total
}
/** callgrind_annotate's mark of a function's recursive call: `f(int)'2 [/usr/bin/node]`. */
const RECURSION = /\)'\d+\s*(?:\[|$)/

/** The optimising compile's inclusive instructions (see `COMPILE_FUNCTION`). */
export const compileInstructionsIn = (annotated) => inclusiveIn(annotated, COMPILE_FUNCTION)

/** `callgrind_annotate --inclusive=yes` of a callgrind output file (callgrind_annotate comes with valgrind). */
export const annotateInclusive = (file) =>
  execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  })

/** `compileInstructionsIn` of a callgrind output file. */
export const compileInstructions = (file) => compileInstructionsIn(annotateInclusive(file))

/**
 * The environment the servers under test start in: this one without what makes Node do work at start-up that
 * neither server asked for. `NODE_EXTRA_CA_CERTS` alone (set on some machines, this one among them) makes
 * Node load every root certificate before it runs a line: about 400 million instructions, three times a bare
 * server's whole start, which would hide the difference a cold start is measured for.
 */
export const START_NOISE = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NODE_V8_COVERAGE']
export function serverEnvironment(base, extra) {
  const env = { ...base, ...extra }
  for (const name of START_NOISE) delete env[name]
  return env
}

/** Whether valgrind can be run here (and which), without throwing. */
export function valgrindVersion() {
  const probe = spawnSync('valgrind', ['--version'], { encoding: 'utf8' })
  return probe.status === 0 ? probe.stdout.trim() : undefined
}

/** `callgrind_control` (through vgdb) switches a running callgrind's instruction counting on and off. */
export const callgrindControl = (pid, ...command) =>
  new Promise((resolve, reject) => {
    execFile('callgrind_control', [...command, String(pid)], (error) => (error ? reject(error) : resolve()))
  })
