/**
 * `security` in `defineServer`: every piece is on by default with conservative values, and each can be
 * tuned or switched off. `createSecurity` turns the options into pipeline parts once, at definition time.
 */
import type { CompiledTool } from '../features/tools/compile.js'
import type { RequestContext } from '../protocol/context.js'
import type { ServerLogger } from '../protocol/dispatcher.js'
import { type Exchange, filterNotifications } from '../protocol/exchange.js'
import type { AroundSteps, Middleware } from '../protocol/middleware.js'
import type { JsonRpcNotification } from '../wire/jsonrpc.js'
import { DEFAULT_MAX_DEPTH } from '../wire/json-depth.js'
import type { BearerAuth } from './auth/bearer.js'
import type { HttpAuthenticator } from '../protocol/handler.js'
import { requestSteps } from './middleware.js'
import { OutageReporter, reportingStore } from './outage.js'
import type { OwnerOf, PrincipalOf } from './principal.js'
import { type OwnerKey, ownerKey } from '../protocol/principal.js'
import {
  type Bucket,
  checkLimit,
  type Limit,
  MemoryRateLimitStore,
  type RateLimitStore,
} from './rate-limit.js'
import type { ResultGuard } from '../features/tools/call.js'
import {
  cleanResult,
  cleanValue,
  fitResult,
  jsonBytes,
  type OutputLimits,
  redactValue,
} from './output-guard.js'
import { scanJsonText } from './json-text-scan.js'
import { createRedactor, type Redactor, secretsFromEnvironment } from './secrets.js'
import { type GuardWrapper, toolGuard, type ToolWrapper } from './tool-guard.js'

export interface RateLimitOptions {
  /** Where counts live (default: in process, at most 10 000 keys). */
  readonly store?: RateLimitStore
  /** Every request, per principal; over it: HTTP 429 + Retry-After (default 600 per 10 s). */
  readonly requests?: Limit | false
  /** Calls of one tool by one principal; over it: a tool error "retry in N s" (default 120 per minute). */
  readonly toolCalls?: Limit | false
  /** Per-tool overrides of `toolCalls` (`false`: unlimited). */
  readonly tools?: Readonly<Record<string, Limit | false>>
}

/**
 * The security bounds and policies of a server (`ServerOptions.security`); every bound has a default (`SECURITY_DEFAULTS`).
 *
 * @example
 * ```ts
 * const security: SecurityOptions = {
 *   maxConcurrentCalls: 16,
 *   toolTimeoutMs: 30_000,
 *   output: { maxBytes: 256 * 1024, oversized: 'truncate' },
 * }
 * const server = defineServer({ name: 'x', version: '1.0.0', security })
 * ```
 */
export interface SecurityOptions {
  /**
   * Authentication on HTTP, the one place to set it: `bearerAuth({...})` (OAuth 2.1 resource server, tool
   * scopes enforced) or any `HttpAuthenticator`. Off when absent; stdio never uses it.
   */
  readonly auth?: BearerAuth | HttpAuthenticator
  /** Rate limits (on by default); `false` turns them all off. */
  readonly rateLimit?: RateLimitOptions | false
  /** Tool calls in flight per principal (default 64). */
  readonly maxConcurrentCalls?: number | false
  /** Timeout for tools without their own `timeoutMs` (default 60 000 ms). */
  readonly toolTimeoutMs?: number | false
  /** Output sanitising and the result size cap (default 1 MiB, truncate); `false` sends results as returned. */
  readonly output?: Partial<OutputLimits> | false
  /** Deepest `params` nesting accepted (default 64). */
  readonly maxDepth?: number
  /** Values that must never appear in anything the server sends or logs. */
  readonly secrets?: readonly string[]
  /** Also treat secret-looking environment variables (`*TOKEN*`, `*SECRET*`, `*API_KEY*` …) as secrets (default true). */
  readonly secretsFromEnv?: boolean
  /**
   * The principal limits count against (default `ctx.principal`: the token's user or client, else the
   * client address, else the transport). Return a `Principal`, e.g. `{ kind: 'anonymous', id: forwarded }`.
   */
  readonly principal?: PrincipalOf
}

/**
 * The default of every security bound (`SecurityOptions`), for reading or for deriving your own.
 *
 * @example
 * ```ts
 * const server = defineServer({
 *   name: 'notes',
 *   version: '1.0.0',
 *   security: { maxConcurrentCalls: SECURITY_DEFAULTS.maxConcurrentCalls * 2 },
 * })
 * ```
 */
export const SECURITY_DEFAULTS = {
  requests: { points: 600, durationMs: 10_000 },
  toolCalls: { points: 120, durationMs: 60_000 },
  maxConcurrentCalls: 64,
  toolTimeoutMs: 60_000,
  output: { maxBytes: 1024 * 1024, oversized: 'truncate' },
  maxDepth: DEFAULT_MAX_DEPTH,
} as const

export type Visibility = (tool: CompiledTool, ctx: RequestContext) => boolean

/** What the server wires in: each part is one of its existing hooks. */
export interface SecurityLayer {
  readonly auth: BearerAuth | HttpAuthenticator | undefined
  readonly middleware: readonly Middleware[]
  /** The request guard as synchronous steps, when it has nothing to wait for (no request limit). */
  readonly around: AroundSteps | undefined
  readonly wrapToolHandler: GuardWrapper
  readonly toolVisibility: Visibility | undefined
  readonly logger: ServerLogger
  /** Redacts secrets from the string values of any result or error; undefined when there are none. */
  readonly redact: ((value: unknown) => unknown) | undefined
  /** Cleans, redacts and caps tool results inside the tools/call pipeline; undefined when nothing to do. */
  readonly guardResult: ResultGuard | undefined
  /** Wraps a request's exchange so its notifications are sanitised and redacted too. */
  readonly guardExchange: ((exchange: Exchange) => Exchange) | undefined
  /** Deepest `params` nesting accepted; transports refuse deeper messages before parsing them. */
  readonly maxDepth: number
}

export interface SecurityHost {
  readonly logger: ServerLogger
  readonly middleware?: readonly Middleware[] | undefined
  readonly toolVisibility?: Visibility | undefined
  readonly wrapToolHandler?: ToolWrapper | undefined
}

function redactingLogger(logger: ServerLogger, redactor: Redactor | undefined): ServerLogger {
  if (!redactor) return logger
  const clean = (details?: Record<string, unknown>): Record<string, unknown> | undefined =>
    details &&
    Object.fromEntries(
      Object.entries(details).map(([key, value]) => [
        key,
        typeof value === 'string' ? redactor(value) : value,
      ]),
    )
  return {
    error: (message, details) => logger.error(redactor(message), clean(details)),
    warn: (message, details) => logger.warn(redactor(message), clean(details)),
  }
}

export function createSecurity(options: SecurityOptions, host: SecurityHost): SecurityLayer {
  const secrets = [
    ...(options.secrets ?? []),
    ...(options.secretsFromEnv === false ? [] : secretsFromEnvironment()),
  ]
  const redactor = createRedactor(secrets)
  const logger = redactingLogger(host.logger, redactor)
  // Worked out once per request: the request limit and the tool guard both ask.
  const principal = ownerOf(options.principal)
  const outage = new OutageReporter(logger, 'the rate-limit store')
  const onStoreFailure = (error: unknown): void => outage.failed(error)

  const limits = options.rateLimit === false ? undefined : (options.rateLimit ?? {})
  const requests = limits && (limits.requests ?? SECURITY_DEFAULTS.requests)
  const toolCalls = limits && (limits.toolCalls ?? SECURITY_DEFAULTS.toolCalls)
  if (requests) checkLimit(requests, 'rateLimit.requests')
  if (toolCalls) checkLimit(toolCalls, 'rateLimit.toolCalls')
  const buckets = new Map<string, Bucket | undefined>()
  for (const [name, limit] of Object.entries(limits?.tools ?? {})) {
    if (limit) checkLimit(limit, `rateLimit.tools.${name}`)
    buckets.set(name, limit ? { name: `tool:${name}`, ...limit } : undefined)
  }
  // The shared budget is per tool: each tool gets its own bucket (made on its first call, one per defined
  // tool), so a bucket's key is only ever the caller's owner key.
  const anyToolLimit = toolCalls !== undefined || [...buckets.values()].some(Boolean)
  const bucketFor = anyToolLimit
    ? (tool: string): Bucket | undefined => {
        if (buckets.has(tool)) return buckets.get(tool)
        const bucket = toolCalls ? { name: `tools:${tool}`, ...toolCalls } : undefined
        buckets.set(tool, bucket)
        return bucket
      }
    : undefined
  // Only a shared store can fail; the in-process one pays nothing for outage reporting, and is built only
  // when some limit counts (it holds an LRU of keys).
  const store = limits?.store
    ? reportingStore(limits.store, outage)
    : requests || anyToolLimit
      ? new MemoryRateLimitStore()
      : undefined

  const positive = (
    value: number | false | undefined,
    fallback: number,
    what: string,
  ): number | undefined => {
    if (value === false) return undefined
    const chosen = value ?? fallback
    if (!(chosen > 0)) throw new TypeError(`security.${what} must be a positive number or false`)
    return chosen
  }
  const maxConcurrent = positive(
    options.maxConcurrentCalls,
    SECURITY_DEFAULTS.maxConcurrentCalls,
    'maxConcurrentCalls',
  )
  const defaultTimeoutMs = positive(options.toolTimeoutMs, SECURITY_DEFAULTS.toolTimeoutMs, 'toolTimeoutMs')
  const maxDepth =
    positive(options.maxDepth, SECURITY_DEFAULTS.maxDepth, 'maxDepth') ?? SECURITY_DEFAULTS.maxDepth

  let output: OutputLimits | undefined
  if (options.output !== false) {
    output = { ...SECURITY_DEFAULTS.output, ...options.output }
    if (!(output.maxBytes > 0)) throw new TypeError('security.output.maxBytes must be positive')
  }
  // The request guard runs as steps around the handler rather than as middleware: with the in-process
  // store nothing in it waits, so a synchronous tool's answer costs no promise of its own.
  const around = requestSteps({
    input: { maxDepth },
    output: output !== undefined,
    requests: requests
      ? {
          store: store as RateLimitStore,
          bucket: { name: 'requests', ...requests },
          principal,
          onStoreFailure,
        }
      : undefined,
  })
  const middleware: Middleware[] = [...(host.middleware ?? [])]

  const guard = toolGuard({ principal, store, bucketFor, maxConcurrent, defaultTimeoutMs, onStoreFailure })
  const inner = host.wrapToolHandler
  const wrapToolHandler: GuardWrapper = inner
    ? (tool, ctx, run) => guard(tool, ctx, () => inner(tool, ctx, async () => run()))
    : guard

  const auth = options.auth && 'toolRefusal' in options.auth ? options.auth : undefined
  if (auth) {
    auth.onVerifierFailure = (error) =>
      logger.error('token verification failed for a reason other than the token', { error: String(error) })
  }
  const scopeVisibility: Visibility | undefined = auth
    ? (tool, ctx) => {
        if (tool.scopes.length === 0) return true
        const granted = ctx.auth?.scopes
        // No HTTP auth on stdio: the local user who started the server is trusted (authorization §Protocol Requirements).
        if (granted === undefined) return ctx.exchange.transport !== 'http'
        if (tool.scopes.every((scope) => granted.includes(scope))) return true
        if (ctx.method === 'tools/call') throw auth.toolRefusal(tool.name, tool.scopes)
        return false
      }
    : undefined
  const own = host.toolVisibility
  // The server's own visibility first: a tool it hides must look unknown, never answer 403.
  const toolVisibility: Visibility | undefined =
    scopeVisibility && own
      ? (tool, ctx) => own(tool, ctx) && scopeVisibility(tool, ctx)
      : (scopeVisibility ?? own)

  // Progress messages and log data come from tool code as much as results do.
  const guardNotification = (message: JsonRpcNotification): JsonRpcNotification => {
    if (message.params === undefined) return message
    const params = output
      ? cleanValue(message.params, { n: 0 }, redactor)
      : redactValue(message.params, redactor)
    return params === message.params ? message : { ...message, params: params as Record<string, unknown> }
  }
  const guardResult: ResultGuard | undefined =
    output || redactor
      ? {
          clean: (result) => cleanResult(result, output !== undefined, redactor),
          size: jsonBytes,
          ...(output && !redactor && { scanText: scanJsonText }),
          fit: (result, bytes) => (output ? fitResult(result, bytes, output) : { result }),
        }
      : undefined
  return {
    auth: options.auth,
    middleware,
    around,
    wrapToolHandler,
    toolVisibility,
    logger,
    redact: redactor && ((value) => redactValue(value, redactor)),
    guardResult,
    maxDepth,
    guardExchange:
      output || redactor ? (exchange) => filterNotifications(exchange, guardNotification) : undefined,
  }
}

/**
 * The owner key limits count against, worked out once per request (the request limit and the tool guard both
 * ask): the request's own, kept on the context, or a chosen principal's, kept beside it.
 */
function ownerOf(choose: PrincipalOf | undefined): OwnerOf {
  if (!choose) return (ctx) => ctx.ownerKey
  const known = new WeakMap<RequestContext, OwnerKey>()
  return (ctx) => {
    let key = known.get(ctx)
    if (key === undefined) known.set(ctx, (key = ownerKey(choose(ctx))))
    return key
  }
}
