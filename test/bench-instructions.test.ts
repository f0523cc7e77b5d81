import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  COMPILE_FUNCTION,
  compileInstructionsIn,
  HASH_SEED_FUNCTION,
  inclusiveIn,
  parseArgs,
  serverEnvironment,
  ROWS,
  totalInstructions,
  USAGE,
  valgrindVersion,
} from '../bench/callgrind.mjs'

const run = (command: string, args: readonly string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })

describe('bench:instructions arguments', () => {
  it('takes the full counts by default and smaller ones with --quick, each overridable', () => {
    const full = parseArgs([])
    expect(full).toMatchObject({ quick: false, calls: 10_000, warmup: 10_000, concurrency: 8, streams: 100 })
    expect(full.only).toEqual(ROWS)
    expect(parseArgs(['--quick'])).toMatchObject({ quick: true, calls: 500, warmup: 2000, streams: 50 })
    expect(parseArgs(['--quick', '--calls=40', '--only=stdio,listen'])).toMatchObject({
      calls: 40,
      warmup: 2000,
      only: ['stdio', 'listen'],
    })
  })

  it('refuses unknown options, bad numbers and unknown rows', () => {
    expect(() => parseArgs(['--fast'])).toThrow(/unknown option --fast/)
    expect(() => parseArgs(['--calls=0'])).toThrow(/positive integer/)
    expect(() => parseArgs(['--calls=1e3x'])).toThrow(/positive integer/)
    expect(() => parseArgs(['--quick=yes'])).toThrow(/takes no value/)
    expect(() => parseArgs(['--only=defaults,sse'])).toThrow(/sse is none of/)
    expect(() => parseArgs(['quick'])).toThrow(/unexpected argument/)
  })

  it('prints its usage for --help and exits 0, and exits 2 on a bad option, before needing valgrind', async () => {
    const help = await run(process.execPath, ['bench/instructions.mjs', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout.trim()).toBe(USAGE)
    const bad = await run(process.execPath, ['bench/instructions.mjs', '--calls=none'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--calls wants a positive integer/)
  })
})

describe('reading a callgrind output', () => {
  it('reads the Ir column of totals, not the summary line, and refuses outputs without them', () => {
    const text = 'events: Ir Dr\nsummary: 0 0\nfn=(1) main\n0 10 2\ntotals: 12345 678\n'
    expect(totalInstructions(text)).toBe(12345)
    expect(totalInstructions('events: Dr Ir\ntotals: 5 77\n')).toBe(77)
    expect(() => totalInstructions('events: Ir\nsummary: 9\n')).toThrow(/no totals/)
    expect(() => totalInstructions('totals: 9\n')).toThrow(/no events line/)
    expect(() => totalInstructions('events: Dr\ntotals: 9\n')).toThrow(/no Ir/)
  })

  it("finds the optimising compile's inclusive instructions in callgrind_annotate's output", () => {
    const annotated = [
      '--------------------------------------------------------------------------------',
      'Ir                    file:function',
      '--------------------------------------------------------------------------------',
      '42,316,542 (100.0%)  ???:0x0000000000001000 [/usr/bin/node]',
      ` 12,978,547 (30.67%)  ???:${COMPILE_FUNCTION}() [/usr/bin/node]`,
      // The function it calls, and one whose name only starts the same, are not counted again.
      ' 12,976,196 (30.66%)  ???:v8::internal::OptimizingCompileDispatcher::CompileNext(v8::internal::TurbofanCompilationJob*) [/usr/bin/node]',
      `     1,000  ???:${COMPILE_FUNCTION}Helper() [/usr/bin/node]`,
    ].join('\n')
    expect(compileInstructionsIn(annotated)).toBe(12_978_547)
    // callgrind_annotate without percentages (a single event) reads the same.
    expect(compileInstructionsIn(`7,000  ???:${COMPILE_FUNCTION}() [/usr/bin/node]`)).toBe(7000)
    expect(compileInstructionsIn('5,000  ???:main [/usr/bin/node]\n')).toBe(0)
  })

  it('sums every overload of a function once, not its recursive calls again', () => {
    const annotated = [
      ` 9,761,852 ( 7.53%)  ???:${HASH_SEED_FUNCTION}(v8::internal::Isolate*) [/usr/bin/node]`,
      ` 9,000,000 ( 7.00%)  ???:${HASH_SEED_FUNCTION}(v8::internal::Isolate*)'2 [/usr/bin/node]`,
      ' 2,000 ( 0.01%)  ???:v8::internal::Compiler::Compile(v8::internal::Isolate*, int) [/usr/bin/node]',
      ' 3,000 ( 0.01%)  ???:v8::internal::Compiler::Compile(v8::internal::Isolate*, bool) [/usr/bin/node]',
    ].join('\n')
    expect(inclusiveIn(annotated, HASH_SEED_FUNCTION)).toBe(9_761_852)
    expect(inclusiveIn(annotated, 'v8::internal::Compiler::Compile')).toBe(5000)
    expect(inclusiveIn(annotated, 'v8::internal::Compiler')).toBe(0)
  })

  it('starts the servers without the variables that make Node work at start-up for neither', () => {
    const env = serverEnvironment(
      { PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/ca.pem', NODE_OPTIONS: '--require x' },
      { TOOLS: '1' },
    )
    expect(env).toEqual({ PATH: '/bin', TOOLS: '1' })
  })

  it.skipIf(valgrindVersion() === undefined)(
    'agrees with what a real callgrind run reports it collected',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'callgrind-test-'))
      try {
        const out = join(dir, 'callgrind.out')
        const result = await run('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, '/bin/true'])
        expect(result.code).toBe(0)
        const collected = /Collected : (\d+)/.exec(result.stderr)?.[1]
        expect(collected).toBeDefined()
        const total = totalInstructions(readFileSync(out, 'utf8'))
        expect(total).toBeGreaterThan(10_000)
        expect(total).toBe(Number(collected))
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  )
})
