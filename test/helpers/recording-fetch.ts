/**
 * Wraps a fetch handler for client tests: records every request (headers and body) and checks every
 * message the server answers with against the MCP schema (unless told not to, for deliberately odd servers).
 */
import { readAnswer } from './http.js'

export interface RecordedRequest {
  headers: Headers
  body: Record<string, unknown>
}

export function recordingFetch(
  handler: (request: Request) => Promise<Response>,
  options: { validate?: boolean } = {},
): { fetch: (request: Request) => Promise<Response>; requests: RecordedRequest[]; problems: unknown[] } {
  const requests: RecordedRequest[] = []
  const problems: unknown[] = []
  return {
    requests,
    problems,
    fetch: async (request) => {
      const body = JSON.parse(await request.clone().text()) as Record<string, unknown>
      requests.push({ headers: new Headers(request.headers), body })
      const response = await handler(request)
      if (options.validate !== false && typeof body.method === 'string' && 'id' in body) {
        // Read a copy in the background: it ends when the server ends the stream (also on cancellation).
        // A stream the client aborted ends with the abort reason; that is not a server fault.
        readAnswer(response.clone(), body.method).catch((error: unknown) => {
          if (!request.signal.aborted) problems.push(error)
        })
      }
      return response
    },
  }
}
