/**
 * What the inspector page talks to: one toolwire client (either era, stdio or HTTP, `toolwire login` tokens),
 * the message log, the questions waiting for the user, and the calls in flight. The page sees only what this
 * returns as JSON and the events it emits; it never reaches the server itself.
 */
import type { Client, ClientOptions } from '../../client/client.js'
import type { Subscription } from '../../client/subscription.js'
import type { JsonRpcNotification } from '../../wire/jsonrpc.js'
import type { CreateMessageResult, ElicitResult, Root, Tool } from '../../wire/types.js'
import { AJV_MODULES } from '../../schema/ajv-static.js'
import { SchemaCompiler } from '../../schema/json-schema.js'
import type { Target } from '../client/target.js'
import { InputBroker } from './input-broker.js'
import { MessageLog } from './message-log.js'

export type InspectorEvent = { type: string } & Record<string, unknown>

export interface SessionOptions {
  /** Base client options from the command line (timeout, protocol version …). */
  readonly client?: Partial<ClientOptions>
  readonly roots?: readonly Root[]
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Checks a value against a schema the server sent, with the validator toolwire itself uses. */
export function schemaIssues(schema: unknown, value: unknown, label: string): string[] {
  if (typeof schema !== 'object' || schema === null) return []
  try {
    const compiled = new SchemaCompiler({ untrusted: true, ajv: AJV_MODULES }).compile(
      schema as Record<string, unknown>,
      label,
    )
    const outcome = compiled.validate(value)
    return outcome.ok ? [] : outcome.issues
  } catch (error) {
    return [`the schema itself is unusable: ${errorText(error)}`]
  }
}

export class InspectorSession {
  readonly log = new MessageLog()
  readonly inputs = new InputBroker((event) => this.emit(event))
  readonly #listeners = new Set<(event: InspectorEvent) => void>()
  readonly #calls = new Map<string, { controller: AbortController; taskId?: string }>()
  readonly #options: SessionOptions
  #roots: Root[]
  #client: Client | undefined
  #subscription: Subscription | undefined
  #target: Target | undefined
  #problem: string | undefined

  constructor(options: SessionOptions = {}) {
    this.#options = options
    this.#roots = [...(options.roots ?? [])]
    this.log.onEntry((entry) => this.emit({ type: 'message', entry }))
  }

  emit(event: InspectorEvent): void {
    for (const listener of this.#listeners) listener(event)
  }

  onEvent(listener: (event: InspectorEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** A problem to show on the page instead of the server (a module that failed to load in `dev`). */
  setProblem(problem: string | undefined): void {
    this.#problem = problem
    this.emit({ type: 'problem', problem: problem ?? null })
  }

  get client(): Client {
    if (!this.#client) throw new Error(this.#problem ?? 'not connected to a server yet')
    return this.#client
  }

  /** Connects to a target, closing any earlier connection. */
  async open(target: Target): Promise<void> {
    await this.close()
    this.#target = target
    const client = target.open(this.#clientOptions(), {
      fetch: () => this.log.recordingFetch(),
      transport: (inner) => this.log.recordingTransport(inner),
    })
    this.#client = client
    await client.discover()
    this.emit({ type: 'connected' })
    // list_changed arrives on a subscriptions/listen stream (2026-07-28) or as a plain notification (2025).
    this.#subscription = await client
      .subscribe(
        { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
        { onNotification: (notification) => this.#notified(notification) },
      )
      .catch(() => undefined)
  }

  #clientOptions(): ClientOptions {
    const ask = this.inputs
    return {
      ...this.#options.client,
      clientInfo: { name: 'toolwire-inspector', version: '0.1.0' },
      // The page renders tool views (docs/inspector.md, "Tool views"): servers may attach them.
      apps: true,
      warn: (message) => this.emit({ type: 'warning', message }),
      onNotification: (notification) => this.#notified(notification),
      handlers: {
        elicitation: async (params, context) =>
          (await ask.ask('elicitation', params, context)) as ElicitResult,
        sampling: async (params, context) =>
          (await ask.ask('sampling', params, context)) as CreateMessageResult,
        roots: () => this.#roots,
      },
    }
  }

  #notified(notification: JsonRpcNotification): void {
    const changed = /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(notification.method)
    if (changed) this.emit({ type: 'changed', list: changed[1] })
    else if (notification.method === 'notifications/message')
      this.emit({ type: 'log', params: notification.params })
  }

  async state(): Promise<Record<string, unknown>> {
    const base = {
      target: this.#target?.describe ?? null,
      problem: this.#problem ?? null,
      roots: this.#roots,
    }
    if (!this.#client) return { ...base, connected: false }
    const client = this.#client
    const discovered = await client.discover()
    return {
      ...base,
      connected: true,
      info: (await client.serverInfo()) ?? null,
      era: client.legacy ? '2025' : '2026-07-28',
      protocolVersion: client.protocolVersion,
      supportedVersions: discovered.supportedVersions,
      capabilities: discovered.capabilities,
      instructions: discovered.instructions ?? null,
      transport: client.transport.kind,
    }
  }

  /** Each list on its own: a server without prompts still shows its tools. */
  async lists(): Promise<Record<string, unknown>> {
    const client = this.client
    const settle = async <T>(list: Promise<T>): Promise<T | { error: string }> =>
      list.catch((error: unknown) => ({ error: errorText(error) }))
    const [tools, resources, templates, prompts] = await Promise.all([
      settle(client.listTools({ fresh: true }).then((result) => result.tools)),
      settle(client.listResources()),
      settle(client.listResourceTemplates()),
      settle(client.listPrompts()),
    ])
    return { tools, resources, templates, prompts }
  }

  /**
   * The server's own tool search (`search_tools`), for a server that lists only a few of its tools: the
   * client checks each definition found as it checks a listed one and remembers it, so the page can show,
   * validate and call it like a listed tool.
   */
  async search(query: string, limit: number): Promise<{ tools: Tool[] }> {
    return { tools: await this.client.searchTools(query, { limit }) }
  }

  #tool(name: string): Tool | undefined {
    return this.#client?.tool(name)
  }

  validate(name: string, args: unknown): string[] {
    const tool = this.#tool(name)
    if (!tool) return [`no tool ${JSON.stringify(name)} is listed`]
    return schemaIssues(tool.inputSchema, args, `Tool ${name} inputSchema`)
  }

  async call(callId: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const controller = new AbortController()
    const running: { controller: AbortController; taskId?: string } = { controller }
    this.#calls.set(callId, running)
    const started = Date.now()
    try {
      const result = await this.client.callTool(name, args, {
        signal: controller.signal,
        resetTimeoutOnProgress: true,
        onProgress: (progress) => this.emit({ type: 'progress', callId, progress }),
        onNotification: (notification) => {
          if (notification.method === 'notifications/message')
            this.emit({ type: 'log', callId, params: notification.params })
        },
        onTaskStatus: (task) => {
          running.taskId = task.taskId
          this.emit({ type: 'task', callId, task })
        },
      })
      const schema = this.#tool(name)?.outputSchema
      const verdict =
        schema === undefined
          ? null
          : result.structuredContent === undefined
            ? ['no structuredContent, though the tool declares an outputSchema']
            : schemaIssues(schema, result.structuredContent, `Tool ${name} outputSchema`)
      return { result, outputIssues: verdict, durationMs: Date.now() - started }
    } catch (error) {
      return { error: errorText(error), durationMs: Date.now() - started }
    } finally {
      this.#calls.delete(callId)
    }
  }

  /** Cancels a call: a task is cancelled at the server (tasks/cancel), then the request is abandoned. */
  async cancel(callId: string): Promise<boolean> {
    const running = this.#calls.get(callId)
    if (!running) return false
    if (running.taskId !== undefined && this.#client) {
      await this.#client
        .task(running.taskId)
        .cancel(AbortSignal.timeout(5_000))
        .catch(() => undefined)
    }
    running.controller.abort('cancelled from the inspector')
    return true
  }

  async setRoots(uris: readonly string[]): Promise<void> {
    this.#roots = uris.map((uri) => ({ uri }))
    // 2025 client/roots §Root List Changes: a client that changes its roots tells the server.
    if (this.#client?.legacy) {
      await this.#client.transport
        .send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })
        .catch(() => undefined)
    }
  }

  async close(): Promise<void> {
    this.inputs.clear('the connection was closed')
    for (const running of this.#calls.values()) running.controller.abort('the connection was closed')
    await this.#subscription?.close().catch(() => undefined)
    await this.#client?.close().catch(() => undefined)
    this.#subscription = undefined
    this.#client = undefined
  }
}
