/**
 * Answers elicitation requests in the terminal: who asks and why, then one prompt per field (type, enum
 * choices, defaults), and the user may accept, decline or cancel. URL mode shows the full URL and its host
 * and waits; an http(s) URL is opened only when the user asks, nothing is fetched (client/elicitation §Safe
 * URL Handling). Without a terminal it declines at once.
 */
import * as prompts from '@clack/prompts'
import { AJV_MODULES } from '../../schema/ajv-static.js'
import { SchemaCompiler } from '../../schema/json-schema.js'
import type {
  ElicitRequestFormParams,
  ElicitRequestUrlParams,
  ElicitResult,
  InputContext,
} from '../../client/index.js'
import { openBrowser } from '../auth/browser.js'
import { forTerminal, jsonForTerminal } from '../terminal-text.js'

type Field = Record<string, unknown>
type Value = string | number | boolean | string[]

const CANCELLED = Symbol('cancelled')
/** Prompts go to stderr, so stdout carries only the result. */
const io = { output: process.stderr }

async function ask<T>(answer: Promise<T>): Promise<Exclude<T, symbol>> {
  const value = await answer
  if (prompts.isCancel(value)) throw CANCELLED
  return value as Exclude<T, symbol>
}

function label(name: string, field: Field, required: boolean): string {
  const title = forTerminal(typeof field.title === 'string' ? field.title : name)
  const description =
    typeof field.description === 'string' ? ` — ${forTerminal(field.description, { multiline: true })}` : ''
  return `${title}${required ? '' : ' (optional)'}${description}`
}

function choices(field: Field): { value: string; label: string }[] | undefined {
  if (Array.isArray(field.enum)) {
    // The legacy titled enum (2025-11-25 LegacyTitledEnumSchema): `enumNames[i]` is the title of `enum[i]`.
    const names: unknown[] = Array.isArray(field.enumNames) ? field.enumNames : []
    return field.enum.map((v, i) => ({
      value: String(v),
      label: forTerminal(typeof names[i] === 'string' ? names[i] : String(v)),
    }))
  }
  const titled = Array.isArray(field.oneOf)
    ? field.oneOf
    : Array.isArray(field.anyOf)
      ? field.anyOf
      : undefined
  if (titled) {
    return (titled as Field[]).map((o) => ({
      value: String(o.const),
      label: forTerminal(String(o.title ?? o.const)),
    }))
  }
  return undefined
}

/**
 * Checks one answer against its field's schema (format, pattern, length, range), so mistakes are fixed before
 * sending.
 */
export function fieldCheck(name: string, field: Field): (value: unknown) => string | undefined {
  let compiled: ReturnType<SchemaCompiler['compile']> | undefined
  try {
    compiled = new SchemaCompiler({ untrusted: true, ajv: AJV_MODULES }).compile(field, `field ${name}`)
  } catch {
    return () => undefined // a schema we cannot compile: the server validates what it receives
  }
  return (value) => {
    const outcome = compiled.validate(value)
    return outcome.ok ? undefined : outcome.issues.join('; ').replace(/^value: /, '')
  }
}

async function askField(name: string, field: Field, required: boolean): Promise<Value | undefined> {
  const message = label(name, field, required)
  const type = field.type
  const options = choices(field)
  if (type === 'array') {
    const items = (field.items ?? {}) as Field
    const itemChoices = choices(items) ?? []
    const initial = Array.isArray(field.default) ? field.default.map(String) : []
    return ask(
      prompts.multiselect({ ...io, message, options: itemChoices, initialValues: initial, required }),
    )
  }
  if (options) {
    const initial = field.default === undefined ? undefined : String(field.default)
    return ask(
      prompts.select({ ...io, message, options, ...(initial !== undefined && { initialValue: initial }) }),
    )
  }
  if (type === 'boolean') {
    return ask(prompts.confirm({ ...io, message, initialValue: field.default === true }))
  }
  const numeric = type === 'number' || type === 'integer'
  const check = fieldCheck(name, field)
  const raw = await ask(
    prompts.text({
      ...io,
      message: `${message} [${String(type ?? 'string')}]`,
      ...(field.default !== undefined && { initialValue: String(field.default) }),
      validate: (input) => {
        const text = input ?? ''
        if (text === '') return required ? 'required' : undefined
        if (numeric) {
          const n = Number(text)
          if (!Number.isFinite(n)) return 'enter a number'
          if (type === 'integer' && !Number.isInteger(n)) return 'enter a whole number'
        }
        return check(numeric ? Number(text) : text)
      },
    }),
  )
  if (raw === '') return undefined
  return numeric ? Number(raw) : raw
}

async function form(params: ElicitRequestFormParams): Promise<ElicitResult> {
  const schema = params.requestedSchema
  const required = new Set(schema.required ?? [])
  const content: Record<string, Value> = {}
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const value = await askField(name, field, required.has(name))
    if (value !== undefined) content[name] = value
  }
  prompts.note(jsonForTerminal(content), 'You are about to send', io)
  const action = await ask(
    prompts.select({
      ...io,
      message: 'Send this answer?',
      options: [
        { value: 'accept' as const, label: 'Send it' },
        { value: 'decline' as const, label: 'Decline' },
        { value: 'cancel' as const, label: 'Cancel' },
      ],
    }),
  )
  return action === 'accept' ? { action, content } : { action }
}

/** Shows a URL a server wants the user to visit: in full, with its host, escaped (§Safe URL Handling). */
function showUrl(target: string, title: string): void {
  let host = '(invalid URL)'
  try {
    host = new URL(target).host
  } catch {
    // shown as invalid; the user decides
  }
  prompts.note(`${forTerminal(target)}\n\nHost: ${forTerminal(host)}`, title, io)
}

/** Only web pages are opened for the user; any other scheme is left to them to copy. */
const openable = (target: string): boolean => /^https?:\/\//i.test(target)

async function open(target: string): Promise<void> {
  if (await openBrowser(target)) prompts.log.info('Opened in your browser.', io)
  else prompts.log.warn('No browser could be opened here: copy the URL above into one.', io)
}

/**
 * A 2026-07-28 server asks in an `input_required` result and the request is sent again with the answer;
 * a 2025-era server waits for the answer inside the same request (2025-11-25 client/elicitation).
 */
async function url(params: ElicitRequestUrlParams, legacy: boolean): Promise<ElicitResult> {
  showUrl(params.url, 'URL')
  let offerOpen = openable(params.url)
  for (;;) {
    const action = await ask(
      prompts.select({
        ...io,
        message: 'When you are done there, continue:',
        options: [
          {
            value: 'accept' as const,
            label: legacy ? 'I have completed it — continue' : 'I have completed it — retry the request',
          },
          ...(offerOpen ? [{ value: 'open' as const, label: 'Open it in my browser first' }] : []),
          { value: 'decline' as const, label: 'Decline' },
          { value: 'cancel' as const, label: 'Cancel' },
        ],
      }),
    )
    if (action !== 'open') return { action }
    await open(params.url)
    offerOpen = false
  }
}

/**
 * A request refused until the user visits URLs (a -32042 error from a 2025-11-25 server): each URL is shown
 * and, with the user's consent, opened. The CLI does not repeat the request; the user runs the command again.
 */
export async function offerRequiredUrls(
  elicitations: readonly { url: string; message: string }[],
  interactive: boolean,
): Promise<void> {
  if (!interactive) return
  for (const { url: target, message } of elicitations) {
    if (message) prompts.log.info(forTerminal(message, { multiline: true }), io)
    showUrl(target, 'The server asks you to visit')
    if (!openable(target)) continue
    const yes = await prompts.confirm({ ...io, message: 'Open it in your browser?', initialValue: false })
    if (yes === true) await open(target)
  }
}

/** The elicitation handler the CLI gives the client. */
export function terminalElicitation(
  server: string,
  interactive: boolean,
  say: (line: string) => void,
  legacy: () => boolean = () => false,
) {
  return async (
    params: ElicitRequestFormParams | ElicitRequestUrlParams,
    context: InputContext,
  ): Promise<ElicitResult> => {
    const what = forTerminal(context.name ?? context.method)
    const origin = `${server} asks (for ${what}): ${forTerminal(params.message, { multiline: true })}`
    if (!interactive) {
      say(`${origin}\nNo terminal to ask in, so the request was declined.`)
      return { action: 'decline' }
    }
    prompts.log.info(origin, io)
    try {
      return params.mode === 'url' ? await url(params, legacy()) : await form(params)
    } catch (error) {
      if (error === CANCELLED) return { action: 'cancel' }
      throw error
    }
  }
}
