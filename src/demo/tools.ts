/** The demo's tools: small, genuinely useful, each with schemas and honest annotations. */
import { defineTool, jsonSchema, ToolError, type ToolDefinition } from '../index.js'

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const

type Op = 'add' | 'subtract' | 'multiply' | 'divide' | 'power' | 'modulo'
const OPS: Record<Op, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  subtract: (a, b) => a - b,
  multiply: (a, b) => a * b,
  divide: (a, b) => a / b,
  power: (a, b) => a ** b,
  modulo: (a, b) => a % b,
}

const arithmetic = defineTool({
  name: 'arithmetic',
  title: 'Arithmetic',
  description: 'Applies one arithmetic operation to two numbers and returns the result.',
  annotations: READ_ONLY,
  inputSchema: jsonSchema<{ op: Op; a: number; b: number }>({
    type: 'object',
    properties: {
      op: { type: 'string', enum: Object.keys(OPS), description: 'The operation' },
      a: { type: 'number', description: 'Left operand' },
      b: { type: 'number', description: 'Right operand' },
    },
    required: ['op', 'a', 'b'],
    additionalProperties: false,
  }),
  outputSchema: jsonSchema<{ result: number }>({
    type: 'object',
    properties: { result: { type: 'number' } },
    required: ['result'],
  }),
  handler: ({ op, a, b }) => {
    if ((op === 'divide' || op === 'modulo') && b === 0)
      throw new ToolError('Cannot divide by zero; choose b ≠ 0.')
    const result = OPS[op](a, b)
    if (!Number.isFinite(result))
      throw new ToolError(`The result of ${op}(${a}, ${b}) is not a finite number.`)
    return { result }
  },
})

/** Linear units as factors of a base unit; temperature is handled apart. */
const UNITS: Record<string, { kind: string; factor: number }> = {
  mm: { kind: 'length', factor: 0.001 },
  cm: { kind: 'length', factor: 0.01 },
  m: { kind: 'length', factor: 1 },
  km: { kind: 'length', factor: 1000 },
  in: { kind: 'length', factor: 0.0254 },
  ft: { kind: 'length', factor: 0.3048 },
  yd: { kind: 'length', factor: 0.9144 },
  mi: { kind: 'length', factor: 1609.344 },
  mg: { kind: 'mass', factor: 0.000001 },
  g: { kind: 'mass', factor: 0.001 },
  kg: { kind: 'mass', factor: 1 },
  oz: { kind: 'mass', factor: 0.028349523125 },
  lb: { kind: 'mass', factor: 0.45359237 },
  ml: { kind: 'volume', factor: 0.001 },
  l: { kind: 'volume', factor: 1 },
  gal: { kind: 'volume', factor: 3.785411784 },
}
const TEMPERATURE = ['C', 'F', 'K']
const toKelvin: Record<string, (v: number) => number> = {
  C: (v) => v + 273.15,
  F: (v) => ((v - 32) * 5) / 9 + 273.15,
  K: (v) => v,
}
const fromKelvin: Record<string, (v: number) => number> = {
  C: (v) => v - 273.15,
  F: (v) => ((v - 273.15) * 9) / 5 + 32,
  K: (v) => v,
}

const convertUnits = defineTool({
  name: 'convert_units',
  title: 'Unit conversion',
  description: `Converts a value between units of length, mass, volume or temperature. Units: ${[...Object.keys(UNITS), ...TEMPERATURE].join(', ')}.`,
  annotations: READ_ONLY,
  inputSchema: jsonSchema<{ value: number; from: string; to: string }>({
    type: 'object',
    properties: {
      value: { type: 'number' },
      from: { type: 'string', enum: [...Object.keys(UNITS), ...TEMPERATURE] },
      to: { type: 'string', enum: [...Object.keys(UNITS), ...TEMPERATURE] },
    },
    required: ['value', 'from', 'to'],
    additionalProperties: false,
  }),
  outputSchema: jsonSchema<{ value: number; unit: string }>({
    type: 'object',
    properties: { value: { type: 'number' }, unit: { type: 'string' } },
    required: ['value', 'unit'],
  }),
  handler: ({ value, from, to }) => {
    if (TEMPERATURE.includes(from) || TEMPERATURE.includes(to)) {
      const [k, f] = [toKelvin[from], fromKelvin[to]]
      if (!k || !f)
        throw new ToolError(`Cannot convert ${from} to ${to}: temperature converts only to C, F or K.`)
      return { value: f(k(value)), unit: to }
    }
    const [a, b] = [UNITS[from], UNITS[to]]
    if (!a || !b || a.kind !== b.kind) {
      throw new ToolError(
        `Cannot convert ${from} (${a?.kind}) to ${to} (${b?.kind}): pick units of the same kind.`,
      )
    }
    return { value: (value * a.factor) / b.factor, unit: to }
  },
})

const textStats = defineTool({
  name: 'text_stats',
  title: 'Text statistics',
  description: 'Counts characters, words, lines and sentences of a text and lists its most frequent words.',
  annotations: READ_ONLY,
  inputSchema: jsonSchema<{ text: string; top?: number }>({
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 1_000_000 },
      top: {
        type: 'integer',
        minimum: 0,
        maximum: 50,
        default: 5,
        description: 'How many frequent words to list',
      },
    },
    required: ['text'],
    additionalProperties: false,
  }),
  outputSchema: jsonSchema<{
    characters: number
    words: number
    lines: number
    sentences: number
    topWords: { word: string; count: number }[]
  }>({
    type: 'object',
    properties: {
      characters: { type: 'integer' },
      words: { type: 'integer' },
      lines: { type: 'integer' },
      sentences: { type: 'integer' },
      topWords: {
        type: 'array',
        items: {
          type: 'object',
          properties: { word: { type: 'string' }, count: { type: 'integer' } },
          required: ['word', 'count'],
        },
      },
    },
    required: ['characters', 'words', 'lines', 'sentences', 'topWords'],
  }),
  handler: ({ text, top = 5 }) => {
    const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []
    const counts = new Map<string, number>()
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1)
    const topWords = [...counts]
      .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
      .slice(0, top)
      .map(([word, count]) => ({ word, count }))
    return {
      characters: [...text].length,
      words: words.length,
      lines: text === '' ? 0 : text.split(/\r\n|\r|\n/).length,
      sentences: (text.match(/[^.!?]+[.!?]+/g) ?? []).length || (text.trim() ? 1 : 0),
      topWords,
    }
  },
})

const currentTime = defineTool({
  name: 'current_time',
  title: 'Current time',
  description: 'Tells the current date and time in an IANA time zone (e.g. Europe/Paris, America/New_York).',
  annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: false },
  inputSchema: jsonSchema<{ timeZone?: string }>({
    type: 'object',
    properties: { timeZone: { type: 'string', default: 'UTC', maxLength: 64 } },
    additionalProperties: false,
  }),
  outputSchema: jsonSchema<{ timeZone: string; iso: string; local: string }>({
    type: 'object',
    properties: { timeZone: { type: 'string' }, iso: { type: 'string' }, local: { type: 'string' } },
    required: ['timeZone', 'iso', 'local'],
  }),
  handler: ({ timeZone = 'UTC' }) => {
    const now = new Date()
    let local: string
    try {
      local = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'full', timeStyle: 'long' }).format(now)
    } catch {
      throw new ToolError(
        `Unknown time zone ${JSON.stringify(timeZone)}; use an IANA name such as Europe/Paris.`,
      )
    }
    return { timeZone, iso: now.toISOString(), local }
  },
})

const countdown = defineTool({
  name: 'countdown',
  title: 'Countdown',
  description: 'Waits the given number of seconds, reporting progress every second; cancellable.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: jsonSchema<{ seconds: number }>({
    type: 'object',
    properties: { seconds: { type: 'integer', minimum: 1, maximum: 60 } },
    required: ['seconds'],
    additionalProperties: false,
  }),
  handler: async ({ seconds }, ctx) => {
    for (let elapsed = 0; elapsed < seconds; elapsed++) {
      ctx.progress(elapsed, seconds, `${seconds - elapsed} s left`)
      await new Promise<void>((resolve, reject) => {
        if (ctx.signal.aborted) return reject(new Error('cancelled'))
        const timer = setTimeout(resolve, 1000)
        ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('cancelled'))), {
          once: true,
        })
      })
    }
    ctx.progress(seconds, seconds, 'done')
    return `Waited ${seconds} s.`
  },
})

export const demoTools: ToolDefinition[] = [arithmetic, convertUnits, textStats, currentTime, countdown]
