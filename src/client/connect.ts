/**
 * `connect()`: the one way to make a Client. Give it a server URL (Streamable HTTP) or any transport; the
 * stdio transport lives in `toolwire/client/stdio` so that this entry runs in browsers and edge runtimes.
 *
 * @example
 * ```ts
 * import { connect } from 'toolwire/client'
 * const client = connect({ url: 'http://127.0.0.1:3000/mcp' })
 * const { tools } = await client.listTools()
 * ```
 */
import { Client, type ClientOptions, type ClientTarget } from './client.js'

/**
 * Connects to an MCP server: a URL (Streamable HTTP, with fallback to older transports) or any `ClientTransport`.
 *
 * @example
 * ```ts
 * import { connect } from 'toolwire/client'
 *
 * const client = connect({ url: 'https://mcp.example.com/mcp' })
 * const { tools } = await client.listTools()
 * const result = await client.callTool('search', { query: 'mcp' })
 * await client.close()
 * ```
 */
export function connect(target: ClientTarget, options?: ClientOptions): Client {
  return new Client(target, options)
}
