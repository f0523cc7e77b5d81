// An OAuth 2.1 resource server: bearer tokens verified per request, a scope per tool, 401/403 otherwise.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { SignJWT } from 'jose'
import { bearerAuth, defineServer, defineTool } from 'toolwire'
import { connect, ProtocolError } from 'toolwire/client'
import { serveNode } from 'toolwire/node'

// The example signs its own tokens with an HS256 secret; a real server names its authorization server's
// JWKS instead: jwt: { issuer, jwksUrl: 'https://auth.example.com/.well-known/jwks.json' }.
const secret = new Uint8Array(randomBytes(32))
const issuer = 'https://auth.example.com'

// #region server
const server = defineServer({
  name: 'notes',
  version: '1.0.0',
  tools: [
    defineTool({
      name: 'notes_read',
      scopes: ['notes:read'],
      handler: (_args, ctx) => `hello ${ctx.auth?.subject}`,
    }),
    defineTool({ name: 'notes_write', scopes: ['notes:write'], handler: () => 'written' }),
  ],
  security: {
    auth: bearerAuth({
      resource: 'https://mcp.example.com/mcp', // tokens must name this audience
      authorizationServers: [issuer],
      jwt: { issuer, key: secret }, // or jwksUrl: a JWKS URL of the authorization server
      scopeHierarchy: { 'notes:write': ['notes:read'] }, // a broader scope implies narrower ones
    }),
  },
})
// #endregion server

const token = (scope: string): Promise<string> =>
  new SignJWT({ scope })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(issuer)
    .setAudience('https://mcp.example.com/mcp')
    .setSubject('alice')
    .setExpirationTime('5m')
    .sign(secret)

const running = await serveNode(server, { port: 0 })
const as = async (scope: string | undefined) =>
  connect({ url: running.url, headers: scope ? { Authorization: `Bearer ${await token(scope)}` } : {} })

const anonymous = await as(undefined)
const status = (code: number) => (error: unknown) => error instanceof ProtocolError && error.status === code
await assert.rejects(anonymous.listTools(), status(401)) // no token: 401 with WWW-Authenticate
await anonymous.close()

const reader = await as('notes:read')
const { tools } = await reader.listTools() // only the tools the caller's scopes allow
assert.deepEqual(
  tools.map((tool) => tool.name),
  ['notes_read'],
)
assert.deepEqual((await reader.callTool('notes_read', {})).content, [{ type: 'text', text: 'hello alice' }])
// A tool hidden from this token is refused by the client before sending, unless allowUnlisted says to try:
// then the server answers 403 insufficient_scope (a client with `auth` would step up its scopes).
await assert.rejects(reader.callTool('notes_write', {}, { allowUnlisted: true }), status(403))
await reader.close()

const writer = await as('notes:write') // notes:write implies notes:read
assert.equal((await writer.listTools()).tools.length, 2)
await writer.close()
await running.close()
console.log('auth: ok')
