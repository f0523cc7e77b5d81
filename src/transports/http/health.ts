/**
 * A health endpoint for load balancers and orchestrators: 200 while what the server depends on is up, 503
 * while it is not, with a small JSON body saying which. It answers without the Host/Origin check and without
 * authentication (a probe rarely sends either) and says only up or down.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** What a health probe found: `ok` picks 200 or 503; `body` is sent as JSON. */
export interface HealthReport {
  readonly ok: boolean
  readonly body: Record<string, unknown>
}

/** Where health is answered and how it is found out (`NodeHandlerOptions.health`). */
export interface HealthOptions {
  /** The path, e.g. `/healthz`. */
  readonly path: string
  /** Finds out whether the server is healthy; a probe that throws counts as down. */
  readonly probe: () => Promise<HealthReport>
}

/** Answers a GET or HEAD of the health path. */
export function answerHealth(health: HealthOptions, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end()
    return
  }
  const write = (report: HealthReport): void => {
    if (res.destroyed) return
    const body = JSON.stringify(report.body)
    res
      .writeHead(report.ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(req.method === 'HEAD' ? undefined : body)
  }
  health.probe().then(write, (error: unknown) =>
    write({
      ok: false,
      body: { status: 'down', error: error instanceof Error ? error.message : String(error) },
    }),
  )
}
