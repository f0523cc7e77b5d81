/**
 * Keeps a server's catalogs in step with one upstream: its tools, prompts, resources and resource templates
 * are listed at start, after a restart, and whenever the upstream announces a change (a listen stream on
 * 2026-07-28, the session's notifications on 2025-era servers); the catalogs then publish the downstream
 * change by themselves (patterns/subscriptions). In a gateway each member's tools and prompts are renamed
 * into its namespace and filtered by name.
 */
import type { Client } from '../client/client.js'
import type { Server } from '../server.js'
import { stripControls } from '../security/sanitize.js'
import type { ServerCapabilities } from '../wire/types.js'
import { CatalogMirror } from './catalog-mirror.js'
import { mirrorPrompt, mirrorResource, mirrorTemplate, mirrorTool } from './mirror.js'
import type { Upstream } from './upstream.js'

export interface MirrorScope {
  /** Downstream name of an upstream tool or prompt (a gateway adds the member's namespace). */
  readonly rename?: (name: string) => string
  /** Whether an upstream tool or prompt (by its upstream name) is offered downstream. */
  readonly offers?: (name: string) => boolean
}

/** Sees a downstream name before it is offered; throws to refuse it. */
export type NameCheck = (kind: 'tool' | 'prompt', name: string) => void

export class UpstreamMirror {
  readonly #upstream: Upstream
  readonly #capabilities: ServerCapabilities
  readonly #report: (what: string, error: unknown) => void
  readonly #rename: (name: string) => string
  readonly #offers: (name: string) => boolean
  readonly #tools
  readonly #prompts
  readonly #resources
  readonly #templates
  #subscription: { close(): Promise<void> } | undefined
  #stopped = false
  #first = true

  constructor(
    server: Server,
    upstream: Upstream,
    capabilities: ServerCapabilities,
    label: string,
    scope: MirrorScope = {},
  ) {
    this.#upstream = upstream
    this.#capabilities = capabilities
    this.#report = (what, error) =>
      server.logger.warn(
        `${label}: ${what}: ${stripControls(error instanceof Error ? error.message : String(error))}`,
      )
    this.#rename = scope.rename ?? ((name) => name)
    this.#offers = scope.offers ?? (() => true)
    this.#tools = new CatalogMirror(server.tools, this.#report)
    this.#prompts = new CatalogMirror(server.prompts, this.#report)
    this.#resources = new CatalogMirror(server.resources, this.#report)
    this.#templates = new CatalogMirror(server.resourceTemplates, this.#report)
  }

  /** The downstream names this member would offer now (for collision checks at definition). */
  get toolNames(): readonly string[] {
    return this.#tools.keys()
  }

  get promptNames(): readonly string[] {
    return this.#prompts.keys()
  }

  /**
   * Lists everything again. `check` sees each tool and prompt name before anything is changed, and may
   * throw to refuse the lists (a gateway refuses collisions at definition).
   */
  async refresh(check?: NameCheck): Promise<void> {
    await Promise.all([this.#refreshTools(check), this.#refreshPrompts(check), this.#refreshResources()])
  }

  async #refreshTools(check?: NameCheck): Promise<void> {
    const upstream = this.#upstream
    const listed = await upstream.use((client) => client.listTools({ fresh: true }))
    const mirrored = listed.tools
      .filter((tool) => this.#offers(tool.name))
      .map((tool) => {
        const name = this.#rename(tool.name)
        check?.('tool', name)
        return { key: name, definition: mirrorTool(tool, upstream, name), source: tool }
      })
    this.#tools.replaceAll(mirrored)
  }

  async #refreshPrompts(check?: NameCheck): Promise<void> {
    if (!this.#capabilities.prompts) return
    const upstream = this.#upstream
    const listed = await upstream.use((client) => client.listPrompts())
    const mirrored = listed
      .filter((prompt) => this.#offers(prompt.name))
      .map((prompt) => {
        const name = this.#rename(prompt.name)
        check?.('prompt', name)
        return { key: name, definition: mirrorPrompt(prompt, upstream, name), source: prompt }
      })
    this.#prompts.replaceAll(mirrored)
  }

  async #refreshResources(): Promise<void> {
    if (!this.#capabilities.resources) return
    const upstream = this.#upstream
    const [resources, templates] = await Promise.all([
      upstream.use((client) => client.listResources()),
      upstream.use((client) => client.listResourceTemplates()),
    ])
    this.#resources.replaceAll(
      resources.map((r) => ({ key: r.uri, definition: mirrorResource(r, upstream), source: r })),
    )
    this.#templates.replaceAll(
      templates.map((t) => ({ key: t.uriTemplate, definition: mirrorTemplate(t, upstream), source: t })),
    )
  }

  /**
   * Called with each new upstream connection: a restarted upstream may offer other things than before, so
   * it is listed again, and the change stream is opened on the new connection.
   */
  connected(client: Client): void {
    if (!this.#first) this.refresh().catch((error: unknown) => this.#report('listing after a restart', error))
    this.#first = false
    this.#listen(client)
  }

  #listen(client: Client): void {
    const capabilities = this.#capabilities
    const filter = {
      ...(capabilities.tools?.listChanged && { toolsListChanged: true }),
      ...(capabilities.prompts?.listChanged && { promptsListChanged: true }),
      ...(capabilities.resources?.listChanged && { resourcesListChanged: true }),
    }
    if (this.#stopped || Object.keys(filter).length === 0) return
    const refreshes: Record<string, () => Promise<void>> = {
      'notifications/tools/list_changed': () => this.#refreshTools(),
      'notifications/prompts/list_changed': () => this.#refreshPrompts(),
      'notifications/resources/list_changed': () => this.#refreshResources(),
    }
    client
      .subscribe(filter, {
        onNotification: (notification) => {
          refreshes[notification.method]?.().catch((error: unknown) =>
            this.#report(`refreshing after ${notification.method}`, error),
          )
        },
      })
      .then(
        (opened) => {
          this.#subscription = opened
          if (this.#stopped) void opened.close()
        },
        (error: unknown) => this.#report('listening for list changes', error),
      )
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await this.#subscription?.close().catch(() => undefined)
  }
}
