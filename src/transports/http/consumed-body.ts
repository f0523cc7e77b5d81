/**
 * Bodies a web framework read before toolwire did. Express's `express.json()`, Fastify and others consume
 * the request stream and leave the result in `req.body`; waiting for the stream's data then would never end.
 * A parsed body is used as it is; a stream consumed without leaving `req.body` is answered at once.
 * No `node:*` import here: the fetch adapter uses this module too, and the root entry runs anywhere.
 */
import type { RequestHandler } from '../../protocol/handler.js'
import { bodyAlreadyConsumed } from '../../wire/errors.js'
import { sendError, type HttpResponseSink } from './core.js'

const encoder = new TextEncoder()

/**
 * The body another middleware already read: bytes when it left them (or a parsed value) in `req.body`,
 * `'gone'` when the stream was consumed and nothing is left, undefined when the stream is still unread.
 */
export function alreadyReadBody(req: {
  readonly readableEnded: boolean
  readonly body?: unknown
}): Uint8Array | 'gone' | undefined {
  // An unread stream wins even when `req.body` is set: some parsers preset `{}` for types they skip.
  if (!req.readableEnded) return undefined
  const body = req.body
  if (body === undefined || body === null) return 'gone'
  if (body instanceof Uint8Array) return body
  if (typeof body === 'string') return encoder.encode(body)
  const text = JSON.stringify(body) as string | undefined
  return text === undefined ? 'gone' : encoder.encode(text)
}

/** Answers a request whose body is gone: a configuration error on the server side, said plainly. */
export function answerConsumedBody(server: RequestHandler, sink: HttpResponseSink): void {
  server.logger.error('MCP request body already consumed by other middleware', {})
  sendError(sink, bodyAlreadyConsumed())
}
