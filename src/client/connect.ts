/**
 * `connect()`: a Client for a server URL (Streamable HTTP) or a command (stdio, spawned here).
 *
 *   const client = connect({ url: 'http://127.0.0.1:3000/mcp' })
 *   const client = connect({ command: 'node', args: ['server.js'] })
 */
import { Client, type ClientOptions, type ClientTarget } from './client.js'
import { StdioTransport, type StdioTransportOptions } from './stdio.js'

export type ConnectTarget = ClientTarget | StdioTransportOptions

export function connect(target: ConnectTarget, options?: ClientOptions): Client {
  const isStdio = 'command' in target && typeof target.command === 'string'
  return new Client(isStdio ? new StdioTransport(target) : (target as ClientTarget), options)
}
