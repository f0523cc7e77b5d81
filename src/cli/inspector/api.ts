/** The inspector's local JSON API: one POST per operation, answered from the session (the page's only peer). */
import { isRecord } from '../../wire/jsonrpc.js'
import { parseTarget } from '../client/target.js'
import { callFromView, viewFor } from './app-views.js'
import type { InspectorSession } from './session.js'

export interface ApiAnswer {
  readonly status: number
  readonly body: unknown
}

const text = (value: unknown, what: string): string => {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${what} must be a non-empty string`)
  return value
}

const record = (value: unknown, what: string): Record<string, unknown> => {
  if (value === undefined) return {}
  if (!isRecord(value)) throw new TypeError(`${what} must be a JSON object`)
  return value
}

const strings = (value: unknown, what: string): Record<string, string> => {
  const entries = Object.entries(record(value, what))
  if (entries.some(([, v]) => typeof v !== 'string')) throw new TypeError(`${what} must map names to strings`)
  return Object.fromEntries(entries) as Record<string, string>
}

/** Results the page asks for; a limit the server's search refuses (toolwire's allows 50) is its answer. */
const searchLimit = (value: unknown): number => {
  if (value === undefined) return 20
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new TypeError('limit must be a whole number >= 1')
  return value
}

/** What the local server knows and the session does not. */
export interface ApiContext {
  /** The origin of the sandbox proxy's listener, where tool views are rendered. */
  readonly sandboxOrigin?: string
}

type Operation = (
  session: InspectorSession,
  body: Record<string, unknown>,
  context: ApiContext,
) => Promise<unknown> | unknown

const OPERATIONS: Record<string, Operation> = {
  state: (session) => session.state(),
  lists: (session) => session.lists(),
  log: (session) => session.log.entries(),
  pending: (session) => session.inputs.pending(),
  connect: async (session, body) => {
    // A URL or a configured name typed in the page; `argv: []` so the CLI's own `--` is not consulted.
    await session.open(parseTarget([text(body.target, 'target')], [], [], []))
    return { ok: true }
  },
  search: (session, body) => session.search(text(body.query, 'query'), searchLimit(body.limit)),
  validate: (session, body) => ({ issues: session.validate(text(body.tool, 'tool'), body.args ?? {}) }),
  call: (session, body) =>
    session.call(text(body.callId, 'callId'), text(body.tool, 'tool'), record(body.args, 'args')),
  view: (session, body, context) => {
    if (context.sandboxOrigin === undefined) throw new Error('this inspector renders no tool views')
    return viewFor(session, text(body.tool, 'tool'), context.sandboxOrigin)
  },
  'view-call': (session, body) =>
    callFromView(session, text(body.callId, 'callId'), text(body.tool, 'tool'), record(body.args, 'args')),
  cancel: async (session, body) => ({ cancelled: await session.cancel(text(body.callId, 'callId')) }),
  answer: (session, body) => ({ answered: session.inputs.answer(text(body.id, 'id'), body.answer) }),
  read: (session, body) => session.client.readResource(text(body.uri, 'uri')),
  prompt: (session, body) => session.client.getPrompt(text(body.name, 'name'), strings(body.args, 'args')),
  complete: (session, body) =>
    session.client.request('completion/complete', {
      ref: record(body.ref, 'ref'),
      argument: record(body.argument, 'argument'),
      ...(body.context !== undefined && { context: record(body.context, 'context') }),
    }),
  roots: async (session, body) => {
    const uris = Array.isArray(body.uris) ? body.uris.map((uri) => text(uri, 'each root')) : []
    await session.setRoots(uris)
    return { ok: true }
  },
}

export async function handleApi(
  session: InspectorSession,
  name: string,
  body: unknown,
  context: ApiContext = {},
): Promise<ApiAnswer> {
  const operation = Object.hasOwn(OPERATIONS, name) ? OPERATIONS[name] : undefined
  if (!operation) return { status: 404, body: { error: `no operation ${name}` } }
  try {
    return { status: 200, body: await operation(session, record(body, 'the request body'), context) }
  } catch (error) {
    // A failed operation is an answer for the page to show, not a failure of the local server.
    return { status: 200, body: { error: error instanceof Error ? error.message : String(error) } }
  }
}
