/**
 * One tool call as one HTTP exchange with the API (server/tools §Security Considerations: a tool that
 * reaches the network must bound what it reads and not leak credentials). The call's signal aborts the
 * request; the answer is read up to a size cap; redirects are followed by hand. Credentials and configured
 * headers go only to the origin of the server URL the tool was built on (scheme, host and port compared as
 * URLs, never as text): a request to another origin, first or after a redirect, goes without them; a
 * non-2xx answer is a tool error with its status and the start of its body.
 */
import type { ToolContext } from '../features/tools/define.js'
import { ToolError } from '../features/tools/errors.js'
import { type ToolResult, toolResult } from '../features/tools/result.js'
import type { ValidationOutcome } from '../schema/json-schema.js'
import { bytesToBase64 } from '../wire/base64.js'
import type { PrivateAddressTest } from '../wire/private-address.js'
import { readStreamCapped } from '../wire/read-capped.js'
import type { CallToolResult } from '../wire/types.js'
import { applyAuth, type OpenAPIAuth } from './auth.js'
import type { BuiltRequest } from './request.js'
import { literalRefusal } from './server-reach.js'
import { sameOrigin } from './url.js'

export interface CallSettings {
  /**
   * Set when the server URL came from a remote document (server-reach.ts): a redirect hop to an IP literal
   * or `localhost` this test calls private is not followed. A name is not looked up here: one lookup per hop
   * would cost every call, and the address fetch connects to could differ from it anyway.
   */
  readonly isPrivateHop?: PrivateAddressTest
  readonly headers: Readonly<Record<string, string>>
  readonly auth: OpenAPIAuth | undefined
  readonly maxResponseBytes: number
  readonly maxErrorBodyChars: number
  readonly maxRedirects: number
  readonly fetch: typeof fetch
  /** A 2xx answer that does not match the documented schema is a tool error (else data with a warning). */
  readonly strictResponses: boolean
}

/**
 * The `_meta` key of what the OpenAPI tools say about an answer (basic/index §_meta: a prefix of reversed
 * DNS labels ending in `/`, not one MCP reserves).
 */
export const OPENAPI_META_KEY = 'dev.toolwire/openapi'

const REDIRECTS = new Set([301, 302, 303, 307, 308])

const isText = (type: string): boolean =>
  /^text\//i.test(type) ||
  /^application\/(?:xml|javascript|x-yaml|yaml|x-www-form-urlencoded)\b/i.test(type) ||
  /\+xml\b/i.test(type) ||
  /charset=/i.test(type)

const isJson = (type: string): boolean => /^application\/(?:[\w.+-]+\+)?json\b/i.test(type)

const failure = (text: string): ToolResult => toolResult({ content: [{ type: 'text', text }], isError: true })

/** Checks a structured answer against the tool's `outputSchema`. */
export type OutputCheck = (value: unknown) => ValidationOutcome | Promise<ValidationOutcome>

export async function callOperation(
  settings: CallSettings,
  built: BuiltRequest,
  context: ToolContext,
  checkOutput: OutputCheck | undefined,
): Promise<ToolResult> {
  let method = built.method
  let url = built.url
  let body = built.body
  let response: Response | undefined
  for (let hop = 0; ; hop++) {
    response = await send(
      settings,
      { method, url, headers: built.headers, body },
      sameOrigin(url, built.base),
      context,
    )
    const location = response.headers.get('location')
    if (!REDIRECTS.has(response.status) || location === null) break
    await response.body?.cancel()
    if (hop >= settings.maxRedirects)
      return failure(
        `HTTP ${response.status}: more than ${settings.maxRedirects} redirects; not followed further`,
      )
    url = new URL(location, url)
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return failure(`HTTP ${response.status}: redirected to a ${url.protocol} URL; not followed`)
    const refused = settings.isPrivateHop && literalRefusal(url, settings.isPrivateHop)
    if (refused)
      return failure(
        `HTTP ${response.status}: redirected to ${refused} and the OpenAPI document is remote; not followed (allowPrivate or baseUrl lets the calls reach it)`,
      )
    // RFC 9110 §15.4: a 303, and in practice a 301 or 302 after a POST, is followed by a GET without the body.
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      if (method !== 'HEAD') method = 'GET'
      body = undefined
    }
  }
  return answer(settings, response, url, checkOutput)
}

async function send(
  settings: CallSettings,
  request: { method: string; url: URL; headers: Headers; body: string | FormData | undefined },
  sameOrigin: boolean,
  context: ToolContext,
): Promise<Response> {
  const url = new URL(request.url)
  // Another origin gets the request's own headers (content type, parameters) but nothing this side adds.
  const headers = new Headers(sameOrigin ? request.headers : withoutCredentials(request.headers))
  if (sameOrigin) {
    for (const [name, value] of Object.entries(settings.headers)) headers.set(name, value)
    await applyAuth(settings.auth, { method: request.method, url, headers, context })
  }
  if (!headers.has('accept')) headers.set('accept', 'application/json, */*;q=0.8')
  const init: RequestInit = {
    method: request.method,
    headers,
    redirect: 'manual',
    signal: context.signal,
    ...(request.body === undefined ? {} : { body: request.body }),
  }
  // Each Request is held until its answer: fetch copies the Request it is given, and the copy follows that
  // Request's signal through a weak reference. Collected mid-flight, it would take the link with it, and the
  // call's deadline or cancellation would no longer reach the connection (seen as an API request left open
  // after a tool timeout). So is the first one, which an OAuth provider copies in turn.
  const send = async (req: Request): Promise<Response> => {
    try {
      return await settings.fetch(req)
    } finally {
      retain(req.signal)
    }
  }
  const outgoing = new Request(url, init)
  try {
    const auth = settings.auth
    if (sameOrigin && typeof auth === 'object' && auth.type === 'oauth')
      return await auth.provider.fetch(outgoing, send)
    return await send(outgoing)
  } catch (error) {
    if (context.signal.aborted) throw error
    throw new ToolError(`Cannot reach ${url.origin}: ${messageOf(error)}`, { cause: error })
  } finally {
    retain(outgoing.signal)
  }
}

/** Cookies and authorization never follow a redirect to another origin. */
function withoutCredentials(headers: Headers): Headers {
  const kept = new Headers(headers)
  kept.delete('authorization')
  kept.delete('cookie')
  kept.delete('proxy-authorization')
  return kept
}

async function answer(
  settings: CallSettings,
  response: Response,
  url: URL,
  checkOutput: OutputCheck | undefined,
): Promise<ToolResult> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  const tooLarge = `HTTP ${response.status}: the response is larger than ${settings.maxResponseBytes} bytes (maxResponseBytes)`
  if (declared > settings.maxResponseBytes) {
    await response.body?.cancel()
    return failure(tooLarge)
  }
  const bytes = await readStreamCapped(response.body, settings.maxResponseBytes)
  if (bytes === undefined) return failure(tooLarge)
  const type = response.headers.get('content-type') ?? ''
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
  if (!response.ok) {
    const textBody = new TextDecoder().decode(bytes)
    const excerpt =
      textBody.length > settings.maxErrorBodyChars
        ? `${textBody.slice(0, settings.maxErrorBodyChars)}… (${textBody.length - settings.maxErrorBodyChars} more characters)`
        : textBody
    return failure(excerpt.trim() ? `${status}: ${excerpt}` : status)
  }
  if (bytes.length === 0) return toolResult({ content: [{ type: 'text', text: status }] })
  if (isJson(type)) {
    let value: unknown
    try {
      value = JSON.parse(new TextDecoder().decode(bytes))
    } catch {
      return failure(`${status}: the response says ${type} but is not JSON`)
    }
    const textContent = { type: 'text' as const, text: JSON.stringify(value) }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      // An answer the document does not describe is the API's doing, not a bug of this server. The call
      // succeeded, so the caller gets the data, as text only: structuredContent must conform to the
      // outputSchema (server/tools §Output Schema), and a warning under _meta says why it is missing.
      // strictResponses makes it a tool error instead.
      const outcome = checkOutput && (await checkOutput(value))
      if (outcome && !outcome.ok) {
        const mismatch = outcome.issues.slice(0, 5).join('; ')
        if (settings.strictResponses)
          return failure(`${status}: the answer does not match the API's documented schema: ${mismatch}`)
        return toolResult({
          content: [textContent],
          _meta: { [OPENAPI_META_KEY]: { responseMismatch: mismatch } },
        })
      }
      return toolResult({ content: [textContent], structuredContent: value as Record<string, unknown> })
    }
    return toolResult({ content: [textContent] })
  }
  const mimeType = type.split(';')[0]?.trim() || 'application/octet-stream'
  if (isText(type) || type === '')
    return toolResult({ content: [{ type: 'text', text: new TextDecoder().decode(bytes) }] })
  const data = bytesToBase64(bytes)
  const content: CallToolResult['content'] = mimeType.startsWith('image/')
    ? [{ type: 'image', data, mimeType }]
    : mimeType.startsWith('audio/')
      ? [{ type: 'audio', data, mimeType }]
      : [{ type: 'resource', resource: { uri: url.href, mimeType, blob: data } }]
  return toolResult({ content })
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = (error as { cause?: unknown }).cause
  return cause instanceof Error && cause.message ? `${error.message} (${cause.message})` : error.message
}

/** Keeps a value reachable up to this call (see `send`). */
function retain(value: unknown): void {
  if (value === retain) throw new Error('unreachable')
}
