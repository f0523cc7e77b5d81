/** toolwire's bearerAuth resource server on a free 127.0.0.1 port, trusting one authorization server. */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { bearerAuth, defineServer, defineTool } from '../../src/index.js'
import { createNodeHandler } from '../../src/transports/http/node.js'

export interface ProtectedNotes {
  readonly url: string
  close(): Promise<void>
}

export async function startProtectedNotes(issuer: string): Promise<ProtectedNotes> {
  const http = createServer()
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
  const server = defineServer({
    name: 'notes',
    version: '1.0.0',
    tools: [
      defineTool({
        name: 'notes_read',
        scopes: ['notes:read'],
        handler: (_args, ctx) => `notes for ${ctx.auth?.subject}`,
      }),
      defineTool({ name: 'notes_write', scopes: ['notes:write'], handler: () => 'written' }),
    ],
    security: {
      auth: bearerAuth({
        resource: url,
        authorizationServers: [issuer],
        jwt: { issuer, jwksUrl: `${issuer}/jwks`, algorithms: ['ES256'] },
        // Least privilege: a client first asks only for reading; writing needs a step-up.
        scopesSupported: ['notes:read'],
      }),
    },
  })
  http.on('request', createNodeHandler(server))
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}
