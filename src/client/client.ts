/**
 * `Client`: uses any MCP server, 2026-07-28 or 2025-era (2025-03-26 to 2025-11-25), through one API. It
 * needs only fetch-era web APIs (stdio lives in `toolwire/client/stdio`). The era is found as basic/versioning
 * §Backward Compatibility with Initialization-Based Versions says (see legacy.ts).
 *
 *   const client = connect({ url: 'http://127.0.0.1:3000/mcp' })
 *   const { tools } = await client.listTools()
 *   const result = await client.callTool('arithmetic', { op: 'add', a: 2, b: 3 })
 */
import { isRecord, type JsonRpcNotification } from '../wire/jsonrpc.js'
import { PROTOCOL_VERSION } from '../wire/meta.js'
import type {
  CallToolResult,
  ClientCapabilities,
  DiscoverResult,
  Implementation,
  ProgressNotificationParams,
  SubscriptionFilter,
  Tool,
} from '../wire/types.js'
import { OAuthProvider } from './auth/provider.js'
import type { OAuthOptions } from './auth/types.js'
import { InvalidResponseError, ProtocolError, UnknownToolError } from './errors.js'
import { HttpTransport, type HttpTransportOptions } from './http.js'
import { checkPinnedVersion, EraGate } from './era.js'
import { budgetLimits, type BudgetLimits, CallBudget } from './budget.js'
import type { Cancellation } from './cancellation.js'
import { discoverResultOf } from './legacy.js'
import { awaitLegacyTask, isCreateTaskResult, legacyTaskState, needsLegacyTask } from './legacy-tasks.js'
import { DEFAULT_CONCURRENT_SERVER_REQUESTS, ServerRequestGate } from './server-requests.js'
import { type NotificationTap, openLegacySubscription } from './legacy-listen.js'
import { answerInputs, capabilitiesFor, type InputHandlers } from './input.js'
import { type CallOptions, DEFAULT_TOTAL_FACTOR, Session } from './session.js'
import { openSubscription, type SubscribeOptions, type Subscription } from './subscription.js'
import {
  type LegacyTaskSupport,
  parseTask,
  TaskHandle,
  TASKS_EXTENSION,
  type TaskHost,
  type TaskState,
} from './tasks.js'
import { type ToolCallAuditor, outcomeOf } from './audit.js'
import { ToolBook } from './tools.js'
import {
  searchArguments,
  searchCandidates,
  searchLimit,
  SEARCH_TOOLS,
  type SearchToolsOptions,
} from './tool-search.js'
import {
  checkPromptResult,
  checkReadResult,
  pageItems,
  type GetPromptResult,
  type PromptInfo,
  type ReadResourceResult,
  type ResourceInfo,
  type ResourceTemplateInfo,
} from './catalogs.js'
import type { ClientTransport } from './transport.js'
import { ErrorCode } from '../wire/errors.js'
import type { TelemetryOption } from '../wire/telemetry.js'
import { ClientTelemetry } from './telemetry.js'
import { type AppView, AppViewError, type AppViewOptions, loadAppView } from './app-view.js'
import { UI_EXTENSION, UI_MIME_TYPE } from '../wire/apps.js'

/**
 * What `connect` takes besides the target: identity, capabilities, input handlers, timeouts, budget, auth.
 *
 * @example
 * ```ts
 * const client = connect(
 *   { url: 'https://mcp.example.com/mcp' },
 *   { timeoutMs: 30_000, budget: { maxPages: 20 }, clientInfo: { name: 'my-app', version: '1.0.0' } },
 * )
 * ```
 */
export interface ClientOptions {
  /** Sent as `clientInfo` on every request (basic/index §_meta); `false` sends none. */
  readonly clientInfo?: Implementation | false
  /** Capabilities to declare beyond those the handlers imply. */
  readonly capabilities?: ClientCapabilities
  /** Answers the server's input requests (elicitation, sampling, roots). */
  readonly handlers?: InputHandlers
  /** Default per-request timeout (default 60 s). */
  readonly timeoutMs?: number
  /**
   * How long `server/discover` may take (default 10 s). On stdio it is sent first, and a legacy server may
   * never answer it, so a silent server fails fast with a clear message instead of stalling.
   */
  readonly discoverTimeoutMs?: number
  /** Most input_required rounds one call may take, task questions included (default 10). */
  readonly maxInputRounds?: number
  /**
   * The other limits of each call's budget: polls and the poll interval floor of a task, questions, list
   * pages and items, server requests per call (defaults in `DEFAULT_BUDGET`).
   */
  readonly budget?: Partial<BudgetLimits>
  /** Requests a 2025-era server may have open at the client at once (default 4); more get an error. */
  readonly maxConcurrentServerRequests?: number
  /**
   * A 2025-era `roots/list` that names no call (stdio, the session's stream) is answered by the only call
   * in flight with handlers of its own, like the server's other requests, instead of by the client's
   * handlers (default false: roots belong to the session, 2025-11-25 client/roots). For a proxy, whose
   * upstream asks the roots of the caller it is serving.
   */
  readonly rootsFromCall?: boolean
  /** Where warnings go (dropped tools …); default console.warn. */
  readonly warn?: (message: string) => void
  /** Notifications no request claims (e.g. logs on stdio). */
  readonly onNotification?: (notification: JsonRpcNotification) => void
  /**
   * Receives one record per `callTool`: tool, arguments, outcome and timing (server/tools §Security
   * Considerations: clients should log tool usage). A hook that throws is reported through `warn`, never
   * into the call.
   */
  readonly onToolCall?: ToolCallAuditor
  /** OAuth for a protected HTTP server (basic/authorization): options, or a provider to share. */
  readonly auth?: OAuthOptions | OAuthProvider
  /** Declare the tasks extension, so long-running tools may answer with a task (default true). */
  readonly tasks?: boolean
  /**
   * Declare the MCP Apps extension (`io.modelcontextprotocol/ui` with `text/html;profile=mcp-app`): this
   * client renders tool views, found with `appFor` (default false; docs/apps.md).
   */
  readonly apps?: boolean
  /**
   * Speak this revision and skip era discovery: `'2026-07-28'` sends no `initialize`; `'2025-11-25'`,
   * `'2025-06-18'` or `'2025-03-26'` open with `initialize` offering it and accept no other. For servers
   * that speak both eras but implement a feature in only one. An unknown value throws a TypeError.
   */
  readonly protocolVersion?: string
  /**
   * OpenTelemetry client spans, metrics and trace context in every request's `_meta` (docs/observability.md): `true` uses the globally registered providers, an object may pass its own. Needs the
   * optional peer dependency `@opentelemetry/api`, imported only when this is set.
   */
  readonly telemetry?: TelemetryOption
}

/**
 * What a Client talks through: HTTP options, or any transport (see `connect()` for stdio commands).
 *
 * @example
 * ```ts
 * connect({ url: 'https://mcp.example.com/mcp', headers: { authorization: `Bearer ${token}` } })
 * connect(new StdioTransport({ command: 'node', args: ['server.js'] }))
 * ```
 */
export type ClientTarget = HttpTransportOptions | ClientTransport

/**
 * Per-call options of `client.callTool`.
 *
 * @example
 * ```ts
 * await client.callTool('render', { id: 7 }, {
 *   timeoutMs: 60_000,
 *   onProgress: ({ progress, total }) => console.log(progress, total),
 *   throwOnToolError: true,
 * })
 * ```
 */
export interface ToolCallOptions {
  readonly signal?: AbortSignal
  readonly timeoutMs?: number
  /** Asks the server for progress and receives it. */
  readonly onProgress?: (progress: ProgressNotificationParams) => void
  /** Log messages and other notifications sent for this call. */
  readonly onNotification?: (notification: JsonRpcNotification) => void
  /** Throw a ToolExecutionError instead of returning a result with `isError: true`. */
  readonly throwOnToolError?: boolean
  /** Each progress notification restarts `timeoutMs`; `maxTotalTimeoutMs` (default 10 × `timeoutMs`) still bounds the call. */
  readonly resetTimeoutOnProgress?: boolean
  readonly maxTotalTimeoutMs?: number
  readonly meta?: Readonly<Record<string, unknown>>
  /** When the server answers with a task: each status change while `callTool` polls it. */
  readonly onTaskStatus?: (task: TaskState) => void
  /**
   * Return the task handle instead of waiting (to come back later); a call the server answers at once
   * still resolves to its result.
   */
  readonly task?: boolean
  /**
   * Call a tool the server does not list (after a fresh `tools/list`) and no `searchTools` answer returned (a
   * tool found by search needs no such option), such as one hidden from the current
   * token that a scope step-up will unlock. Its result is returned UNCHECKED unless the tool is listed once
   * the credential has changed: there is no `outputSchema` to check `structuredContent` against, and no
   * `Mcp-Param-*` headers are sent. Without it, such a call throws `UnknownToolError` before anything is sent.
   */
  readonly allowUnlisted?: boolean
  /**
   * Answers what the server asks during this call (elicitation, sampling, roots) instead of the client's
   * `handlers`: a proxy hands each call's questions to its own caller. Only capabilities the client
   * declared are answered.
   */
  readonly handlers?: InputHandlers
}

/**
 * A call relayed by toolwire's proxy: its cancellation followed without an AbortSignal (session.ts). Not
 * exported from the package: a proxy follows its caller on every call, which a signal per call would cost.
 */
export interface RelayedCallOptions extends ToolCallOptions {
  readonly cancellation?: Cancellation
}

type Writable<T> = { -readonly [K in keyof T]: T[K] }

/**
 * The fields `#within` copies, checked against CallOptions when compiling: a field added there and not
 * copied would otherwise be dropped from every call without a word.
 */
type CopiedByWithin =
  | 'budget'
  | 'signal'
  | 'cancellation'
  | 'timeoutMs'
  | 'meta'
  | 'headers'
  | 'onNotification'
  | 'onStatus'
  | 'resetTimeoutOnProgress'
  | 'maxTotalTimeoutMs'
const everyFieldCopied: Exclude<keyof CallOptions, CopiedByWithin> extends never ? true : never = true
void everyFieldCopied

/** A request's options as the input rounds take them: its headers made for each round, and a recovery. */
type RoundOptions = Writable<Omit<CallOptions, 'headers'>> & {
  headers?: () => Record<string, string>
  recover?: (error: unknown) => Promise<boolean>
}

export interface ListToolsResult {
  readonly tools: Tool[]
  /** Whether every page came from the cache. */
  readonly cached: boolean
}

/** The methods a server may answer with input_required (MRTR "Supported Requests"). */
const INPUT_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read'])

function withAuth(target: HttpTransportOptions, auth: ClientOptions['auth']): HttpTransportOptions {
  if (!auth) return target
  return { ...target, auth: auth instanceof OAuthProvider ? auth : new OAuthProvider(target.url, auth) }
}

function isTransport(target: ClientTarget): target is ClientTransport {
  return typeof (target as ClientTransport).request === 'function'
}

/**
 * A connection to one MCP server, made by `connect`: list and call tools, read resources, get prompts, subscribe to changes.
 *
 * @example
 * ```ts
 * const client = connect({ url: 'https://mcp.example.com/mcp' })
 * const { tools } = await client.listTools()
 * const result = await client.callTool(tools[0]!.name, {})
 * await client.close()
 * ```
 */
export class Client {
  readonly transport: ClientTransport
  readonly #session: Session
  readonly #handlers: InputHandlers
  readonly #capabilities: ClientCapabilities
  readonly #book = new ToolBook()
  readonly #limits: BudgetLimits
  readonly #timeoutMs: number
  readonly #warn: (message: string) => void
  readonly #audit: ToolCallAuditor | undefined
  #discovered: Promise<DiscoverResult> | undefined
  #discoveredUntil = Infinity
  readonly #discoverTimeoutMs: number
  readonly #era: EraGate
  readonly #gate: ServerRequestGate
  /** Spans, metrics and trace context (`telemetry` option); undefined when off. */
  readonly #telemetry: ClientTelemetry | undefined
  readonly #taps = new Set<(notification: JsonRpcNotification) => void>()

  constructor(target: ClientTarget, options: ClientOptions = {}) {
    const pinned =
      options.protocolVersion === undefined ? undefined : checkPinnedVersion(options.protocolVersion)
    this.transport = isTransport(target) ? target : new HttpTransport(withAuth(target, options.auth))
    this.#handlers = options.handlers ?? {}
    const declared = capabilitiesFor(this.#handlers, options.capabilities)
    const withTasks =
      options.tasks === false
        ? declared
        : { ...declared, extensions: { [TASKS_EXTENSION]: {}, ...declared.extensions } }
    // Extensions are opt-in (extensions overview §Negotiation): the UI one only when asked for.
    this.#capabilities = options.apps
      ? {
          ...withTasks,
          extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] }, ...withTasks.extensions },
        }
      : withTasks
    this.#limits = budgetLimits({
      ...options.budget,
      ...(options.maxInputRounds !== undefined && { maxInputRounds: options.maxInputRounds }),
    })
    this.#timeoutMs = options.timeoutMs ?? 60_000
    this.#discoverTimeoutMs = options.discoverTimeoutMs ?? 10_000
    // Dropped tools must be reported somewhere (streamable-http §Client Behavior); the application can
    // redirect it.
    // eslint-disable-next-line no-console
    this.#warn = options.warn ?? ((message) => console.warn(`toolwire client: ${message}`))
    const clientInfo = options.clientInfo === false ? undefined : (options.clientInfo ?? CLIENT_INFO)
    this.#telemetry =
      options.telemetry === undefined || options.telemetry === false
        ? undefined
        : new ClientTelemetry(options.telemetry, this.transport, this.#warn)
    this.#session = new Session(this.transport, {
      clientInfo,
      capabilities: this.#capabilities,
      protocolVersion: PROTOCOL_VERSION,
      timeoutMs: this.#timeoutMs,
      ...(this.#telemetry && { telemetry: this.#telemetry }),
    })
    this.#audit = options.onToolCall
    this.#era = new EraGate(this.#session, clientInfo, this.#discoverTimeoutMs, pinned)
    const onNotification = options.onNotification
    this.transport.onNotification = (notification) => {
      for (const tap of this.#taps) tap(notification)
      onNotification?.(notification)
    }
    // Only 2025-era servers send requests; a 2026-07-28 server's would be a protocol violation, left unanswered.
    const gate = new ServerRequestGate(
      this.#session,
      this.#handlers,
      options.maxConcurrentServerRequests ?? DEFAULT_CONCURRENT_SERVER_REQUESTS,
      options.rootsFromCall === true,
    )
    this.transport.onRequest = (request, origin) => {
      if (this.#era.legacy) gate.receive(request, origin)
    }
    this.#session.onLegacyRequestEnd = (id) => gate.originEnded(id)
    this.#gate = gate
  }

  /** Whether the server turned out to be 2025-era (after the first request). */
  get legacy(): boolean {
    return this.#era.legacy !== undefined
  }

  /** The protocol version requests are sent with. */
  get protocolVersion(): string {
    return this.#session.version
  }

  get capabilities(): ClientCapabilities {
    return this.#capabilities
  }

  /** `server/discover`: the server's versions, capabilities and identity (cached while its `ttlMs` lasts). */
  discover(options: { signal?: AbortSignal } = {}): Promise<DiscoverResult> {
    if (this.#era.legacy) return Promise.resolve(discoverResultOf(this.#era.legacy))
    if (this.#discovered && Date.now() >= this.#discoveredUntil) this.#discovered = undefined
    this.#discovered ??= this.#discover(options.signal).then(
      (result) => {
        this.#discoveredUntil =
          Date.now() + (typeof result.ttlMs === 'number' ? Math.max(0, result.ttlMs) : 0)
        return result
      },
      (error: unknown) => {
        this.#discovered = undefined
        throw error
      },
    )
    return this.#discovered
  }

  async #discover(signal: AbortSignal | undefined): Promise<DiscoverResult> {
    const timeoutMs = this.#discoverTimeoutMs
    const result = await this.#request('server/discover', {}, { timeoutMs, ...(signal && { signal }) })
    if (this.#era.legacy) return discoverResultOf(this.#era.legacy)
    return checkDiscover(result)
  }

  /**
   * The server's self-reported identity from `server/discover` (display only: basic/index §_meta says never
   * to act on it).
   */
  async serverInfo(): Promise<Implementation | undefined> {
    const meta = (await this.discover())._meta
    const info = meta?.['io.modelcontextprotocol/serverInfo']
    return isRecord(info) ? (info as unknown as Implementation) : undefined
  }

  #request(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    // A call waiting on a 2025-11-25 task with tasks/result: what the server asks naming that task (its
    // related-task `_meta`) belongs to this call, even on stdio, where requests name no call.
    if (method === 'tasks/result' && options.budget && typeof params.taskId === 'string')
      options.budget.relatedTask = params.taskId
    return this.#era.request(method, params, options)
  }

  /**
   * The budget of one call. Its time is `maxTotalTimeoutMs`, by default 10 × `timeoutMs`: each request of
   * the call still has its own `timeoutMs`, and a task the call waits for ends with the call.
   */
  #budget(
    what: string,
    timing: { timeoutMs?: number; maxTotalTimeoutMs?: number; handlers?: InputHandlers } = {},
  ): CallBudget {
    const total = timing.maxTotalTimeoutMs ?? (timing.timeoutMs ?? this.#timeoutMs) * DEFAULT_TOTAL_FACTOR
    const budget = new CallBudget(this.#limits, what, total)
    budget.handlers = timing.handlers
    return budget
  }

  /**
   * A request's options within its call's budget: never past the call's deadline. `headers`, when given,
   * replace the options' own. Copied field by field: a spread of an options object that was filled in after
   * it was made goes through the runtime, and cost about 7 µs a request (probed in the proxy).
   */
  #within(
    budget: CallBudget,
    options: Omit<CallOptions, 'headers'>,
    headers?: Readonly<Record<string, string>>,
  ): CallOptions {
    const left = budget.remainingMs()
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs
    const capped =
      Number.isFinite(left) &&
      (options.resetTimeoutOnProgress === true ||
        !(left >= timeoutMs) ||
        options.maxTotalTimeoutMs !== undefined)
    const within: Writable<CallOptions> = { budget }
    if (options.signal) within.signal = options.signal
    if (options.cancellation) within.cancellation = options.cancellation
    if (options.timeoutMs !== undefined) within.timeoutMs = options.timeoutMs
    if (options.meta) within.meta = options.meta
    if (headers) within.headers = headers
    if (options.onNotification) within.onNotification = options.onNotification
    if (options.onStatus) within.onStatus = options.onStatus
    if (options.resetTimeoutOnProgress !== undefined)
      within.resetTimeoutOnProgress = options.resetTimeoutOnProgress
    if (capped) within.maxTotalTimeoutMs = Math.min(left, options.maxTotalTimeoutMs ?? Infinity)
    else if (options.maxTotalTimeoutMs !== undefined) within.maxTotalTimeoutMs = options.maxTotalTimeoutMs
    return within
  }

  /** Every tool, following cursors; pages are served from the cache while their `ttlMs` lasts. */
  async listTools(options: { signal?: AbortSignal; fresh?: boolean } = {}): Promise<ListToolsResult> {
    if (options.fresh) this.#book.invalidate()
    const credential = await this.transport.credentialKey()
    // By name: a tool removed and added again while the client pages moves to the end of the list and is
    // listed twice; the later definition is the current one.
    const tools = new Map<string, Tool>()
    const seen = new Set<string>()
    let cursor: string | undefined
    let cached = true
    let restarted = false
    const budget = this.#budget('tools/list')
    for (;;) {
      const version = this.#session.version
      let page = this.#book.page(credential, version, cursor)
      if (!page) {
        cached = false
        const params = cursor === undefined ? {} : { cursor }
        let result: Record<string, unknown>
        try {
          result = await this.#request('tools/list', params, options.signal ? { signal: options.signal } : {})
        } catch (error) {
          // A cursor that is no longer valid: drop every cached page and start over, once (utilities/caching
          // §Interaction with Pagination).
          if (
            cursor === undefined ||
            restarted ||
            !(error instanceof ProtocolError) ||
            error.code !== ErrorCode.InvalidParams
          ) {
            throw error
          }
          restarted = true
          this.#book.invalidate()
          tools.clear()
          seen.clear()
          cursor = undefined
          continue
        }
        if (result.resultType === 'input_required' || !Array.isArray(result.tools)) {
          throw new InvalidResponseError('tools/list: the result has no tools array')
        }
        // Mcp-Param-* headers are 2026-07-28 only: a 2025-era server's tools are accepted as on stdio.
        const http = this.transport.kind === 'http' && !this.#era.legacy
        const accepted = this.#book.accept(result.tools, http, this.#warn)
        // Keyed by the version the page was fetched with: the first request may have settled a 2025-era one.
        page = this.#book.store(credential, this.#session.version, cursor, result, accepted)
      }
      // A server may hand out new cursors forever: pages and items are bounded by the budget.
      budget.page(page.tools.length, page.nextCursor !== undefined)
      for (const tool of page.tools) tools.set(tool.name, tool)
      if (page.nextCursor === undefined) break
      if (seen.has(page.nextCursor))
        throw new InvalidResponseError('tools/list: the server repeated a cursor')
      seen.add(page.nextCursor)
      cursor = page.nextCursor
    }
    return { tools: [...tools.values()], cached }
  }

  /**
   * Searches the server's tools with its `search_tools` tool (a server with `toolSearch` lists only a few
   * tools and finds the rest by query): the best matches, best first, as full definitions. They are checked
   * as a `tools/list` page is (a malformed one or, on HTTP, one with broken `x-mcp-header` annotations is
   * dropped with a warning) and remembered as if listed, so `callTool` calls a found tool directly, with
   * its `Mcp-Param-*` headers and its `outputSchema` checked; a tool neither listed nor found is still
   * refused. Throws `UnknownToolError` when the server lists no `search_tools`.
   *
   * @example
   * ```ts
   * const [best] = await client.searchTools('weather forecast for a city', { limit: 3 })
   * if (best) await client.callTool(best.name, { city: 'Lisbon', days: 2 })
   * ```
   */
  async searchTools(query: string, options: SearchToolsOptions = {}): Promise<Tool[]> {
    const limit = searchLimit(options.limit)
    const signal = options.signal && { signal: options.signal }
    let search = this.#book.known(SEARCH_TOOLS)?.tool
    if (!search) {
      await this.listTools({ fresh: true, ...signal })
      search = this.#book.known(SEARCH_TOOLS)?.tool
      if (!search) throw new UnknownToolError(SEARCH_TOOLS, undefined, 'the server offers no tool search')
    }
    const result = await this.callTool(SEARCH_TOOLS, searchArguments(search, query, limit), {
      throwOnToolError: true,
      ...signal,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    })
    const candidates = searchCandidates(result.structuredContent, limit)
    return this.#book.accept(
      candidates,
      this.transport.kind === 'http' && !this.#era.legacy,
      this.#warn,
      true,
    )
  }

  /**
   * Calls a tool: runs the input_required loop, checks `structuredContent` against the `outputSchema`. When
   * the server answers with a task, polls it to the end (or, with `task: true`, returns its handle).
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: ToolCallOptions & { task: true },
  ): Promise<CallToolResult | TaskHandle>
  callTool(name: string, args?: Record<string, unknown>, options?: ToolCallOptions): Promise<CallToolResult>
  callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: ToolCallOptions = {},
  ): Promise<CallToolResult | TaskHandle> {
    // Without an auditor, no extra promise layer per call.
    return this.#audit
      ? this.#auditedCall(this.#audit, name, args, options)
      : this.#callTool(name, args, options)
  }

  async #auditedCall(
    audit: ToolCallAuditor,
    name: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<CallToolResult | TaskHandle> {
    const started = Date.now()
    const record = (settled: { result: CallToolResult } | { error: unknown }): void => {
      try {
        audit({
          tool: name,
          arguments: args,
          server: this.#serverLabel(),
          startedAt: new Date(started).toISOString(),
          durationMs: Date.now() - started,
          ...outcomeOf(settled),
        })
      } catch (error) {
        this.#warn(`the onToolCall hook failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
    try {
      const result = await this.#callTool(name, args, options)
      // A returned task handle is not an outcome yet; the caller follows it.
      if (!(result instanceof TaskHandle)) record({ result })
      return result
    } catch (error) {
      record({ error })
      throw error
    }
  }

  /** The server, as an audit record names it: the URL without its query (which may hold a token), or stdio. */
  #serverLabel(): string {
    const url = (this.transport as { url?: unknown }).url
    return url instanceof URL ? `${url.origin}${url.pathname}` : this.transport.kind
  }

  async #callTool(
    name: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<CallToolResult | TaskHandle> {
    const wantsProgress = options.onProgress !== undefined || options.resetTimeoutOnProgress === true
    const progressToken = wantsProgress ? this.#session.nextToken() : undefined
    const onNotification = (notification: JsonRpcNotification): void => {
      const params = notification.params
      if (notification.method === 'notifications/progress' && params?.progressToken === progressToken) {
        options.onProgress?.(params as unknown as ProgressNotificationParams)
      } else options.onNotification?.(notification)
    }
    // Results are only trusted against the tool's definition (from a list page or a searchTools answer,
    // checked alike). A tool this client has no definition of may
    // have been added since the list was cached: list once more, past the cache; a tool still unknown is
    // refused before anything is sent (its structuredContent could not be checked), unless allowed. An
    // allowed call remembers its credential: a scope step-up on the way (a tool hidden from the token it
    // had) changes it, and the tool may then be listed, so its result can be checked after all.
    let unlistedWith: string | undefined
    if (!this.#book.known(name)) {
      await this.listTools({ fresh: true, ...(options.signal && { signal: options.signal }) })
      if (!this.#book.known(name)) {
        if (options.allowUnlisted !== true) throw new UnknownToolError(name, this.#book.dropped(name))
        unlistedWith = await this.transport.credentialKey()
      }
    }
    this.#book.checkParamValues(name, args)
    const base: Record<string, unknown> = { name, arguments: args }
    if (progressToken !== undefined) base._meta = { progressToken }
    // A 2025-11-25 tool that runs only as a task is called with a `task` (2025-11-25 basic/utilities/tasks).
    if (needsLegacyTask(this.#era.legacy, this.#book.known(name)?.tool)) base.task = {}
    let refreshedHeaders = false
    const budget = this.#budget(`tools/call ${name}`, options)
    // Built field by field: spreads of optional fields in a literal each cost a runtime copy, per call.
    const request: RoundOptions = {
      headers: () => (this.#era.legacy ? {} : this.#book.paramHeaders(name, args)),
      onNotification,
      // A header mismatch may mean our copy of the schema is stale: refresh it once and retry
      // (streamable-http §Client Behavior).
      recover: async (error) => {
        if (
          !(error instanceof ProtocolError) ||
          error.code !== ErrorCode.HeaderMismatch ||
          refreshedHeaders ||
          this.transport.kind !== 'http'
        ) {
          return false
        }
        refreshedHeaders = true
        await this.listTools({ fresh: true, ...(options.signal && { signal: options.signal }) })
        return true
      },
    }
    if (options.signal) request.signal = options.signal
    const { cancellation } = options as RelayedCallOptions
    if (cancellation) request.cancellation = cancellation
    if (options.timeoutMs !== undefined) request.timeoutMs = options.timeoutMs
    if (options.resetTimeoutOnProgress) request.resetTimeoutOnProgress = true
    if (options.maxTotalTimeoutMs !== undefined) request.maxTotalTimeoutMs = options.maxTotalTimeoutMs
    if (options.meta) request.meta = options.meta
    const result = await this.#withInputs('tools/call', name, base, budget, request)
    if (base.task !== undefined && isCreateTaskResult(result)) {
      const created = legacyTaskState(result.task, `tools/call ${name}`)
      const handle = new TaskHandle(this.#taskHost(name, options), created)
      if (options.task) return handle
      return handle.result({
        budget,
        ...(options.signal && { signal: options.signal }),
        ...(options.onTaskStatus && { onStatus: options.onTaskStatus }),
      })
    }
    if (result.resultType === 'task') {
      if (!this.#capabilities.extensions?.[TASKS_EXTENSION])
        throw new InvalidResponseError(
          `tools/call ${name}: a task answer, but this client did not declare tasks`,
        )
      const handle = new TaskHandle(this.#taskHost(name, options), parseTask(result, `tools/call ${name}`))
      if (options.task) return handle
      return handle.result({
        budget,
        ...(options.signal && { signal: options.signal }),
        ...(options.onTaskStatus && { onStatus: options.onTaskStatus }),
      })
    }
    if (unlistedWith !== undefined && (await this.transport.credentialKey()) !== unlistedWith)
      await this.listTools({ fresh: true, ...(options.signal && { signal: options.signal }) })
    return this.#book.checkCall(name, result, options.throwOnToolError === true)
  }

  /** A handle on a task created earlier (e.g. by another process), to poll, answer or cancel it. */
  task(taskId: string, options: { tool?: string } = {}): TaskHandle {
    const now = new Date().toISOString()
    const created: TaskState = { taskId, status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: null }
    return new TaskHandle(this.#taskHost(options.tool, {}), created)
  }

  #taskHost(tool: string | undefined, options: ToolCallOptions): TaskHost {
    return {
      request: (method, params, signal, budget) =>
        this.#request(
          method,
          params,
          budget ? this.#within(budget, signal ? { signal } : {}) : signal ? { signal } : {},
        ),
      budget: () => this.#budget(tool === undefined ? 'task' : `tools/call ${tool}`, options),
      answer: (inputRequests, signal) =>
        answerInputs(inputRequests, this.#handlers, this.#capabilities, {
          method: 'tools/call',
          name: tool,
          signal,
        }),
      finish: (result) =>
        tool === undefined
          ? result
          : this.#book.checkCall(tool, { ...result }, options.throwOnToolError === true),
      ...(this.#era.legacy && { legacy: this.#legacyTasks }),
    }
  }

  /** How handles follow a 2025-era server's tasks: its questions come on tasks/result (legacy-tasks.ts). */
  readonly #legacyTasks: LegacyTaskSupport = {
    state: (value) => legacyTaskState(value, 'tasks/get'),
    wait: (created, budget, options) =>
      awaitLegacyTask({ request: this.#request.bind(this) }, created, budget, {
        signal: options.signal,
        onStatus: options.onStatus,
      }),
  }

  /**
   * Sends a request that may be answered with input_required (tools/call, prompts/get, resources/read) and
   * runs the rounds: each retry is the original request with a new id, the answers and the exact state.
   */
  async #withInputs(
    method: string,
    name: string | undefined,
    base: Record<string, unknown>,
    budget: CallBudget,
    options: RoundOptions,
  ): Promise<Record<string, unknown>> {
    // No rest copy of `options`: `recover` rides along unread, `headers` is replaced by its value.
    const { headers, recover } = options
    let retry: Record<string, unknown> | undefined
    for (;;) {
      let result: Record<string, unknown>
      try {
        const params = retry ? { ...base, ...retry } : base
        result = await this.#request(method, params, this.#within(budget, options, headers?.()))
      } catch (error) {
        if (recover && (await recover(error))) continue
        throw budget.explain(error)
      }
      if (result.resultType !== 'input_required') return result
      const asked = isRecord(result.inputRequests) ? Object.keys(result.inputRequests).length : 0
      budget.inputRound(asked)
      const handlers = budget.handlers ?? this.#handlers
      const inputResponses = await answerInputs(result.inputRequests, handlers, this.#capabilities, {
        method,
        name,
        // A never-aborted signal when the caller gave none, made only when input is asked for.
        signal: options.signal ?? options.cancellation?.signal ?? new AbortController().signal,
      })
      retry = { inputResponses }
      if (typeof result.requestState === 'string') retry.requestState = result.requestState
    }
  }

  /** Every resource the server lists, following cursors. */
  listResources(options: { signal?: AbortSignal } = {}): Promise<ResourceInfo[]> {
    return this.#listAll('resources/list', 'resources', 'uri', options.signal)
  }

  /** Every resource template the server lists, following cursors. */
  listResourceTemplates(options: { signal?: AbortSignal } = {}): Promise<ResourceTemplateInfo[]> {
    return this.#listAll('resources/templates/list', 'resourceTemplates', 'uriTemplate', options.signal)
  }

  /** Every prompt the server lists, following cursors. */
  listPrompts(options: { signal?: AbortSignal } = {}): Promise<PromptInfo[]> {
    return this.#listAll('prompts/list', 'prompts', 'name', options.signal)
  }

  /**
   * Reads a resource; the server may ask for input first (answered by the handlers, or by
   * `options.handlers` for this call alone).
   */
  async readResource(
    uri: string,
    options: { signal?: AbortSignal; handlers?: InputHandlers } = {},
  ): Promise<ReadResourceResult> {
    const result = await this.#withInputs(
      'resources/read',
      uri,
      { uri },
      this.#budget(`resources/read ${uri}`, options.handlers ? { handlers: options.handlers } : {}),
      { ...(options.signal && { signal: options.signal }) },
    )
    return checkReadResult(result)
  }

  /**
   * Gets a prompt with its arguments; the server may ask for input first (answered by the handlers, or by
   * `options.handlers` for this call alone).
   */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: { signal?: AbortSignal; handlers?: InputHandlers } = {},
  ): Promise<GetPromptResult> {
    const base = { name, arguments: args }
    const budget = this.#budget(`prompts/get ${name}`, options.handlers ? { handlers: options.handlers } : {})
    const result = await this.#withInputs('prompts/get', name, base, budget, {
      ...(options.signal && { signal: options.signal }),
    })
    return checkPromptResult(result)
  }

  async #listAll<T>(
    method: string,
    field: string,
    key: string,
    signal: AbortSignal | undefined,
  ): Promise<T[]> {
    const items: T[] = []
    const seen = new Set<string>()
    let cursor: string | undefined
    const budget = this.#budget(method)
    for (;;) {
      const params = cursor === undefined ? {} : { cursor }
      const result = await this.#request(method, params, signal ? { signal } : {})
      const page = pageItems<T>(method, result, field, key)
      // A server may hand out new cursors forever: pages and items are bounded by the budget.
      budget.page(page.length, typeof result.nextCursor === 'string')
      items.push(...page)
      const next = result.nextCursor
      if (typeof next !== 'string') return items
      if (seen.has(next)) throw new InvalidResponseError(`${method}: the server repeated a cursor`)
      seen.add(next)
      cursor = next
    }
  }

  /**
   * A tool's MCP Apps view: its `ui://` resource read and checked (type, metadata, size), with the CSP and
   * `allow` list to render it under; undefined when the tool has no view. Throws `AppViewError` for a view
   * that must not be rendered. Declare `apps: true` so the server knows this client renders views.
   */
  async appFor(tool: string | Tool, options: AppViewOptions = {}): Promise<AppView | undefined> {
    let listed = typeof tool === 'string' ? this.#book.known(tool)?.tool : tool
    if (listed === undefined) {
      await this.listTools({ fresh: true, ...(options.signal && { signal: options.signal }) })
      listed = this.#book.known(tool as string)?.tool
    }
    if (listed === undefined) throw new AppViewError(`appFor: the server lists no tool ${String(tool)}`)
    return loadAppView(this, listed, options)
  }

  /** The definition of a tool as last listed (after filtering), if known. */
  tool(name: string): Tool | undefined {
    return this.#book.known(name)?.tool
  }

  /**
   * Opens a `subscriptions/listen` stream. A `tools/list_changed` notification also drops the cached tool
   * list (utilities/caching §Interaction with Notifications), so the next listTools() fetches it again; with
   * `onToolsChanged` the client refetches by itself, once per burst of changes.
   */
  async subscribe(filter: SubscriptionFilter, options: SubscribeOptions = {}): Promise<Subscription> {
    if (!this.#era.settled) await this.discover()
    await this.#era.ready()
    const legacy = this.#era.legacy
    const { onToolsChanged } = options
    let timer: ReturnType<typeof setTimeout> | undefined
    const refresh = (): void => {
      timer = undefined
      this.listTools({ fresh: true }).then(
        (result) => onToolsChanged?.(result.tools),
        () => {}, // the cache stays dropped: the next listTools() retries and reports the error
      )
    }
    const onEvent = (notification: JsonRpcNotification): void => {
      if (notification.method !== 'notifications/tools/list_changed') return
      this.#book.invalidate()
      if (!onToolsChanged) return
      if (timer) clearTimeout(timer)
      timer = setTimeout(refresh, options.refreshDebounceMs ?? 100)
    }
    const subscription = legacy
      ? await openLegacySubscription(this.#session, legacy, this.#tap, filter, options, onEvent)
      : await openSubscription(this.#session, filter, options, onEvent)
    void subscription.ended.then(() => timer && clearTimeout(timer))
    return subscription
  }

  /**
   * Any other request (prompts, resources …), with the `_meta` envelope and typed errors. `handlers`: what
   * a 2025-era server asks while this request is open (e.g. a `tasks/result` it holds while a task waits
   * for an answer) goes to them instead of the client's, counted against this request's budget.
   */
  request(
    method: string,
    params: Record<string, unknown> = {},
    options: { signal?: AbortSignal; timeoutMs?: number; handlers?: InputHandlers } = {},
  ): Promise<Record<string, unknown>> {
    if (INPUT_METHODS.has(method)) {
      const name =
        typeof (params.name ?? params.uri) === 'string' ? String(params.name ?? params.uri) : undefined
      const budget = this.#budget(name === undefined ? method : `${method} ${name}`, options)
      return this.#withInputs(method, name, params, budget, options)
    }
    // What a 2025-era server asks while this request is open goes to its own handlers, counted by its budget.
    const { handlers, ...rest } = options
    const sent: CallOptions = handlers
      ? { ...rest, budget: this.#budget(method, { ...rest, handlers }) }
      : rest
    return this.#request(method, params, sent).then((result) => {
      if (result.resultType === 'input_required') {
        throw new InvalidResponseError(`${method}: input_required is not allowed for this method`)
      }
      return result
    })
  }

  readonly #tap: NotificationTap = (listener) => {
    this.#taps.add(listener)
    return () => this.#taps.delete(listener)
  }

  /** Closes the connection (stdio: ends the server process; a 2025-era HTTP session is ended with DELETE). */
  async close(): Promise<void> {
    this.#gate.close()
    const session = this.#era.takeSession()
    await this.transport.close()
    if (session) this.#telemetry?.sessionEnded(session.since, session.version)
  }
}

const CLIENT_INFO: Implementation = { name: 'toolwire', version: '0.1.0' }

function checkDiscover(result: Record<string, unknown>): DiscoverResult {
  if (!Array.isArray(result.supportedVersions) || !isRecord(result.capabilities)) {
    throw new InvalidResponseError('server/discover: the result lacks supportedVersions or capabilities')
  }
  return result as unknown as DiscoverResult
}
