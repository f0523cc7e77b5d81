/**
 * The benchmark server's definition: `add` {a, b} → text plus `structuredContent` under an `outputSchema`,
 * and `tools - 1` filler tools `tool_0001` … so registry size can be varied. Full validation stays on, and so
 * do the security defaults (input guards, output sanitising, tool timeouts) except the per-principal request
 * and call limits and the concurrency cap: the load generator is a single anonymous principal, and the
 * benchmark measures serving, not refusing.
 */
import {
  type BearerAuth,
  defineServer,
  defineTool,
  jsonSchema,
  type SecurityOptions,
  type Server,
  type TelemetryOptions,
  type ToolDefinition,
} from 'toolwire'

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: jsonSchema<{ a: number; b: number }>({
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  }),
  outputSchema: jsonSchema<{ sum: number }>({
    type: 'object',
    properties: { sum: { type: 'number' } },
    required: ['sum'],
    additionalProperties: false,
  }),
  handler: ({ a, b }) => ({ sum: a + b }),
})

/**
 * `add` as a tool with no schema to speak of (`SCHEMAS=open`, the guard-cost rows): any object in, no
 * `outputSchema`, the same answer (structured content and its text). The difference from `add` is what
 * validating its arguments and its structured content costs a call.
 */
const addOpen = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: jsonSchema<{ a: number; b: number }>({ type: 'object' }),
  handler: ({ a, b }) => ({ sum: a + b }),
})

/** A filler tool with a realistic small schema, so a large registry costs what a real one would. */
function filler(index: number): ToolDefinition {
  const name = `tool_${String(index).padStart(4, '0')}`
  return defineTool({
    name,
    description: `Filler tool number ${index}: echoes its text argument.`,
    inputSchema: jsonSchema<{ text: string; times?: number }>({
      type: 'object',
      properties: {
        text: { type: 'string', description: 'Text to echo' },
        times: { type: 'integer', minimum: 1, maximum: 10, description: 'Repetitions' },
      },
      required: ['text'],
      additionalProperties: false,
    }),
    handler: ({ text, times }) => text.repeat(times ?? 1),
  })
}

/**
 * The guard variants of the guard-cost rows (`--only=guards`, bench/guards.ts): each turns one guard off
 * (or, for the two the benchmark normally leaves off, on with a bound the load never reaches), so the CPU a
 * call costs with and without it gives that guard's price.
 */
export const GUARD_VARIANTS = {
  'timeout off': { toolTimeoutMs: false },
  'output guard off': { output: false },
  'timeout and output guard off': { toolTimeoutMs: false, output: false },
  // Redaction costs nothing until there is a secret: the benchmark's environment holds none.
  'one secret to redact': { secrets: ['bench-secret-0123456789abcdef'] },
  'rate limits on': {
    rateLimit: {
      requests: { points: 1e12, durationMs: 10_000 },
      toolCalls: { points: 1e12, durationMs: 60_000 },
    },
  },
  'concurrency cap on': { maxConcurrentCalls: 1_000 },
  // A depth no message of the load can reach by its length: the depth pre-check on the text is skipped.
  'depth check unreachable': { maxDepth: 100_000 },
} as const satisfies Record<string, SecurityOptions>

export type GuardVariant = keyof typeof GUARD_VARIANTS

/**
 * `auth`: bearer auth on every HTTP request (the auth rows of the benchmark); `telemetry`: OpenTelemetry
 * spans and metrics (the telemetry rows); `variant`: one guard changed, or several (the guard-cost rows). All off by
 * default. `defaults`: no `security` option at all, every guard as a user gets it (rate limits and the
 * concurrency cap on); the load must then stay within the per-address limits (bench/instructions.mjs does).
 * `openSchemas`: `add` without its schemas (see addOpen).
 */
export function createBenchServer(
  tools: number,
  pageSize = 1000,
  auth?: BearerAuth,
  telemetry?: TelemetryOptions,
  variant?: GuardVariant | readonly GuardVariant[],
  defaults = false,
  openSchemas = false,
): Server {
  const definitions: ToolDefinition[] = [openSchemas ? addOpen : add]
  for (let index = 1; index < tools; index++) definitions.push(filler(index))
  if (defaults) {
    if (auth || variant) throw new Error('SECURITY=defaults takes no auth and no GUARD_VARIANT')
    return defineServer({
      name: 'toolwire-bench',
      version: '0.1.0',
      tools: definitions,
      pageSize,
      ...(telemetry && { telemetry }),
    })
  }
  return defineServer({
    name: 'toolwire-bench',
    version: '0.1.0',
    tools: definitions,
    pageSize,
    security: {
      rateLimit: false,
      maxConcurrentCalls: false,
      ...(auth && { auth }),
      ...[variant ?? []]
        .flat()
        .reduce<SecurityOptions>((all, one) => ({ ...all, ...GUARD_VARIANTS[one] }), {}),
    },
    ...(telemetry && { telemetry }),
  })
}
