/** The demo server `npm start` serves. */
import { defineServer, type HandleStore, type SecurityOptions, type Server } from '../index.js'
import type { ChangeBus } from '../features/subscriptions/bus.js'
import type { SessionStateStore } from '../features/subscriptions/session-store.js'
import type { RateLimitStore } from '../security/rate-limit.js'
import { basketTools } from './basket.js'
import { rollDice } from './dice.js'
import { createNotebook } from './notes.js'
import { notebookSkill } from './skills.js'
import { demoTools } from './tools.js'

export interface DemoOptions {
  /** Where baskets live (default: in memory). */
  readonly store?: HandleStore
  /** Security settings, such as `auth`, passed to `defineServer`. */
  readonly security?: SecurityOptions
  /** Where list changes go (default: in process); a Redis bus reaches listeners on every instance. */
  readonly changes?: ChangeBus
  /** Where rate-limit counts live (default: in process). */
  readonly rateLimitStore?: RateLimitStore
  /** Where 2025-era sessions' log level, subscriptions and end live (default: each instance's memory). */
  readonly sessionStore?: SessionStateStore
  /** The `requestState` secret every instance shares (default: TOOLWIRE_STATE_SECRET, else per process). */
  readonly requestStateSecret?: string
}

/**
 * The demo's name in the MCP Registry and on its server card: reverse-DNS under the repository's GitHub owner
 * (the registry's namespace for a server published from github.com/toolwire), as package.json's `mcpName` says.
 *
 * @example
 * ```ts
 * const card = await fetchServerCard('http://127.0.0.1:3000/mcp')
 * card.name === DEMO_REGISTRY_NAME // true
 * ```
 */
export const DEMO_REGISTRY_NAME = 'io.github.toolwire/toolwire-demo'

export function createDemoServer(options: DemoOptions = {}): Server {
  const security = options.rateLimitStore
    ? { ...options.security, rateLimit: { store: options.rateLimitStore } }
    : options.security
  const notebook = createNotebook()
  const server = defineServer({
    name: 'toolwire-demo',
    title: 'toolwire demo',
    version: '0.1.0',
    instructions:
      'Small utility tools (arithmetic, unit conversion, text statistics, time zones, a countdown), a ' +
      'notebook: add_note asks the user to fill in a form, delete_notes asks them to confirm; the notes are ' +
      'resources (notes://all, notes://note/{id}) and summarize_notes is a prompt over them; and a shopping ' +
      'basket kept between calls by a handle (basket_create, basket_add, basket_view, basket_checkout); ' +
      'roll_dice has an MCP Apps view (ui://demo/dice) that hosts rendering views show. ' +
      'The skill skill://notebook-workflow/SKILL.md explains the notebook.',
    tools: [...demoTools, ...notebook.tools, ...basketTools(options.store), rollDice],
    resources: notebook.resources,
    prompts: notebook.prompts,
    skills: [notebookSkill],
    // Served at <endpoint>/server-card, so `toolwire card` (and any client that discovers) can read it.
    serverCard: {
      name: DEMO_REGISTRY_NAME,
      description: 'Demo MCP server: utility tools, a notebook that asks for input, a basket kept by handles',
      repository: { url: 'https://github.com/toolwire/toolwire', source: 'github', subfolder: 'src/demo' },
    },
    // Set it when several demo instances share a load balancer; otherwise a per-process secret is used.
    requestState: { secret: options.requestStateSecret ?? process.env.TOOLWIRE_STATE_SECRET },
    ...(options.changes && { changes: options.changes }),
    ...(options.sessionStore && { legacy: { stateStore: options.sessionStore } }),
    ...(security && { security }),
  })
  notebook.attach(server)
  return server
}
