/**
 * `npm run bench:openapi [-- --quick] [-- --documents=github,figma] [-- --runs=N]`: how long `fromOpenAPI`
 * (the published `toolwire/openapi` entry, `dist/`) takes to turn a published document into tools, and the
 * memory it takes, for the largest document of the corpus (GitHub's REST API, 13 MB of JSON, 1,223
 * operations) and for Figma's (YAML, OpenAPI 3.1) and Netlify's (Swagger 2.0) beside it. Each load runs in
 * a fresh process (bench/openapi-load-child.mjs), so its memory is that load's alone: wall time from the
 * call to the tools, peak resident set (`maxRSS`) and heap used after a forced collection, each absolute and
 * as the increase over the same process's baseline just before the call. Every load's tool count must be the
 * one test/openapi-corpus.test.ts asserts, or the run fails. A timing figure: medians and min–max over the
 * runs, on a machine whose other work moves them.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gunzipSync } from 'node:zlib'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CORPUS = join(ROOT, 'test', 'vendor', 'openapi-corpus')
const CHILD = fileURLToPath(new URL('openapi-load-child.mjs', import.meta.url))
const MB = 1e6

/** The issue's goal for GitHub's document: tools ready in under 3 s, in under 150 MB. */
export const GOAL = { ms: 3_000, mb: 150 } as const

export interface CorpusDocument {
  readonly key: string
  readonly label: string
  /** The vendored file, relative to the corpus folder (`.gz` is unpacked to a scratch folder first). */
  readonly file: string
  /** Tools and skipped operations, as test/openapi-corpus.test.ts asserts them. */
  readonly tools: number
  readonly skipped: number
}

export const DOCUMENTS: readonly CorpusDocument[] = [
  {
    key: 'github',
    label: 'GitHub REST API (OpenAPI 3.0, JSON, 13.0 MB)',
    file: 'github/api.github.com.json.gz',
    tools: 1223,
    skipped: 0,
  },
  {
    key: 'figma',
    label: 'Figma REST API (OpenAPI 3.1, YAML, 0.4 MB)',
    file: 'figma/openapi.yaml',
    tools: 52,
    skipped: 2,
  },
  {
    key: 'netlify',
    label: 'Netlify API (Swagger 2.0, JSON, 0.7 MB)',
    file: 'netlify/swagger.json',
    tools: 181,
    skipped: 0,
  },
  {
    key: 'petstore',
    label: 'Petstore (OpenAPI 3.0, JSON, 26 KB)',
    file: 'petstore-openapi3/petstore.json',
    tools: 20,
    skipped: 0,
  },
]

/** What one child reports (bytes and milliseconds). */
interface Load {
  readonly tools: number
  readonly distinct: number
  readonly skipped: number
  readonly ms: number
  readonly baseline: { readonly rss: number; readonly heap: number }
  readonly rss: number
  readonly heap: number
}

export interface DocumentResult {
  readonly document: CorpusDocument
  readonly loads: readonly Load[]
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/**
 * The child's command: on every core of the machine, as a user's process runs, even when this process was
 * pinned to fewer (`npm run bench` pins its load generator, bench/harness.ts `pinApart`). Pinned to one of
 * two cores, the same load of GitHub's document took 6.5 s instead of 4.9 s: the collector's helper threads
 * and the optimising compiler then take turns with the load on one core.
 */
function childCommand(file: string): [string, string[]] {
  const node = [process.execPath, '--expose-gc', CHILD, file]
  const all = cpus().length
  return availableParallelism() < all
    ? ['taskset', ['-c', `0-${all - 1}`, ...node]]
    : [process.execPath, node.slice(1)]
}

/** One load of `file` in a fresh `node --expose-gc` (plain node: no tsx in the measured process). */
function loadOnce(file: string): Promise<Load> {
  const [command, args] = childCommand(file)
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20, timeout: 300_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`loading ${file} failed: ${stderr || error.message}`))
        try {
          resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as Load)
        } catch {
          reject(new Error(`loading ${file}: no result line in ${JSON.stringify(stdout)}`))
        }
      },
    )
  })
}

/** The path a child loads: the vendored file, or its unpacked copy under `scratch`. */
function pathOf(document: CorpusDocument, scratch: string): string {
  const vendored = join(CORPUS, document.file)
  if (!vendored.endsWith('.gz')) return vendored
  // Unpacked into a folder of its own: a local document may read only files under its folder.
  const unpacked = join(scratch, document.key, document.file.split('/').pop()?.slice(0, -3) ?? 'document')
  mkdirSync(join(scratch, document.key), { recursive: true })
  writeFileSync(unpacked, gunzipSync(readFileSync(vendored)))
  return unpacked
}

/**
 * Loads each document `runs(document)` times, one fresh process per load, the documents taking turns (A B C,
 * A B C …) so a slower stretch of the machine falls on all of them. Throws on a wrong tool count.
 */
export async function openAPILoads(
  documents: readonly CorpusDocument[],
  runs: (document: CorpusDocument) => number,
  log: (line: string) => void = console.log,
): Promise<DocumentResult[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'toolwire-openapi-load-'))
  try {
    const paths = new Map(documents.map((document) => [document, pathOf(document, scratch)]))
    const loads = new Map<CorpusDocument, Load[]>(documents.map((document) => [document, []]))
    const rounds = Math.max(...documents.map(runs))
    for (let round = 1; round <= rounds; round++) {
      for (const document of documents) {
        if (round > runs(document)) continue
        const load = await loadOnce(paths.get(document) as string)
        if (
          load.tools !== document.tools ||
          load.distinct !== document.tools ||
          load.skipped !== document.skipped
        )
          throw new Error(
            `${document.key}: ${load.tools} tools (${load.distinct} names), ${load.skipped} skipped; ` +
              `test/openapi-corpus.test.ts asserts ${document.tools} tools, ${document.skipped} skipped`,
          )
        loads.get(document)?.push(load)
        log(
          `round ${round}  ${document.key.padEnd(8)} ${load.tools} tools  ${load.ms.toFixed(0)} ms  ` +
            `peak RSS ${(load.rss / MB).toFixed(1)} MB (+${((load.rss - load.baseline.rss) / MB).toFixed(1)})  ` +
            `heap ${(load.heap / MB).toFixed(1)} MB (+${((load.heap - load.baseline.heap) / MB).toFixed(1)})`,
        )
      }
    }
    return documents.map((document) => ({ document, loads: loads.get(document) ?? [] }))
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

/** `median (min–max)` of one figure over a document's loads; the spread only when there are several. */
function spread(loads: readonly Load[], of: (load: Load) => number, scale: number, digits: number): string {
  const values = loads.map((load) => of(load) / scale)
  const text = (value: number): string =>
    value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })
  const middle = text(median(values))
  return values.length > 1 ? `${middle} (${text(Math.min(...values))}–${text(Math.max(...values))})` : middle
}

/** The table: one row per document, medians with their spread, and the goal where it has one. */
export function openAPILoadTable(results: readonly DocumentResult[]): string {
  const lines = [
    '| Document | tools | runs | load time (ms) | peak RSS (MB) | RSS increase (MB) | heap after GC (MB) | heap increase (MB) | goal | met |',
    '|---|--:|--:|--:|--:|--:|--:|--:|---|---|',
  ]
  for (const { document, loads } of results) {
    const goal = document.key === 'github'
    const ms = median(loads.map((load) => load.ms))
    const rss = median(loads.map((load) => load.rss)) / MB
    const met = goal ? `time ${ms < GOAL.ms ? 'yes' : 'no'}, memory ${rss < GOAL.mb ? 'yes' : 'no'}` : ''
    lines.push(
      `| ${document.label} | ${loads[0]?.tools ?? 0}${document.skipped > 0 ? ` (${document.skipped} skipped)` : ''} | ${loads.length} | ${spread(loads, (l) => l.ms, 1, 0)} | ${spread(loads, (l) => l.rss, MB, 1)} | ${spread(loads, (l) => l.rss - l.baseline.rss, MB, 1)} | ${spread(loads, (l) => l.heap, MB, 1)} | ${spread(loads, (l) => l.heap - l.baseline.heap, MB, 1)} | ${goal ? `< ${GOAL.ms / 1000} s, < ${GOAL.mb} MB peak RSS` : ''} | ${met} |`,
    )
  }
  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  lines.push(
    '',
    'Each load in a fresh `node --expose-gc` process: `fromOpenAPI(file)` from `toolwire/openapi` (`dist/`), timed from the call to the tools ' +
      "(reading and parsing the file and the first import of the document parser included). Peak RSS is the process's `maxRSS` after the load; " +
      'heap is `heapUsed` after a forced collection with the tools held; each increase is over the same process after importing the entry, ' +
      'before the call. Medians, min–max in brackets; MB = 10^6 bytes. The memory goal is read on the absolute peak RSS.',
    `Machine: ${cpus().length} cores, ${cpu}, node ${process.version}.`,
  )
  return lines.join('\n')
}

/** Writes the table to `results/bench-openapi-load-<timestamp>.md` (under `dir`), and returns the file. */
export function writeOpenAPILoadTable(table: string, dir = 'results'): string {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `bench-openapi-load-${new Date().toISOString().replace(/[:.]/g, '-')}.md`)
  writeFileSync(file, `${table}\n`)
  return file
}

/** The command line: `--quick` loads each document once, `--runs=N` N times (default 5). */
export function parseArgs(argv: readonly string[]): {
  documents: CorpusDocument[]
  runs: number
  resultsDir: string
} {
  let runs = 5
  let keys = ['github', 'figma', 'netlify']
  let resultsDir = 'results'
  for (const arg of argv) {
    if (arg === '--quick') runs = 1
    else if (arg.startsWith('--runs=')) {
      runs = Number(arg.slice(7))
      if (!Number.isInteger(runs) || runs < 1)
        throw new Error(`--runs wants a positive integer, not ${arg.slice(7)}`)
    } else if (arg.startsWith('--documents=')) keys = arg.slice(12).split(',')
    else if (arg.startsWith('--results-dir=')) resultsDir = arg.slice(14)
    else throw new Error(`unknown option ${arg} (--quick, --runs=N, --documents=a,b, --results-dir=path)`)
  }
  const documents = keys.map((key) => {
    const found = DOCUMENTS.find((document) => document.key === key)
    if (!found) throw new Error(`no document ${key}: ${DOCUMENTS.map((document) => document.key).join(', ')}`)
    return found
  })
  return { documents, runs, resultsDir }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const main = async (): Promise<void> => {
    const { documents, runs, resultsDir } = parseArgs(process.argv.slice(2))
    const table = openAPILoadTable(await openAPILoads(documents, () => runs))
    console.log(`\n${table}\n`)
    console.log(`Written to ${writeOpenAPILoadTable(table, resultsDir)}`)
  }
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  })
}
