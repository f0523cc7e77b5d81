/**
 * The probe every framework test mounts: a call, an invalid call, and a listen stream that sees a tool list change
 * made by another request (test/frameworks.test.ts and test/peers/next.test.ts).
 */
import type { AddressInfo } from 'node:net'
import type { Server as NodeHttpServer } from 'node:http'
import { expect } from 'vitest'
import { connect } from '../../src/client/index.js'
import { defineServer, defineTool, jsonSchema, type Server } from '../../src/index.js'

/** A server with a tool to add, and one that hides another (a tool list change). */
export function probeServer(): Server {
  const server: Server = defineServer({
    name: 'framework-probe',
    version: '1.0.0',
    tools: [
      defineTool({
        name: 'add',
        inputSchema: jsonSchema<{ a: number; b: number }>({
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        }),
        handler: ({ a, b }) => String(a + b),
      }),
      defineTool({ name: 'extra', handler: () => 'extra' }),
      defineTool({
        name: 'hide_extra',
        handler: () => {
          server.tools.disable('extra')
          return 'hidden'
        },
      }),
    ],
  })
  return server
}

const closers: (() => Promise<void>)[] = []
/** Registers something the current test opened, to be closed after it. */
export function onClose(close: () => Promise<void>): void {
  closers.push(close)
}

/** Closes what the last test opened; each test file calls it in `afterEach`. */
export async function closeAll(): Promise<void> {
  for (const close of closers.splice(0)) await close()
}

/** Listens on a free loopback port; the server is closed by `closeAll`. */
export function listenNode(httpServer: NodeHttpServer): Promise<string> {
  return new Promise((resolve) => {
    httpServer.listen(0, '127.0.0.1', () => {
      const { port } = httpServer.address() as AddressInfo
      closers.push(
        () =>
          new Promise<void>((done) => {
            httpServer.closeAllConnections()
            httpServer.close(() => done())
          }),
      )
      resolve(`http://127.0.0.1:${port}/mcp`)
    })
  })
}

/** A call, then a listen stream that sees the tool list change made by another request. */
export async function exercise(
  target: { url: string; fetch?: (request: Request) => Promise<Response> },
  listen = true,
): Promise<void> {
  const client = connect(target)
  closers.push(() => client.close())
  const result = await client.callTool('add', { a: 2, b: 3 })
  expect(result.content).toEqual([{ type: 'text', text: '5' }])
  const invalid = await client.callTool('add', { a: 'two' })
  expect(invalid.isError).toBe(true)
  if (!listen) return
  let seen!: (names: string[]) => void
  const changed = new Promise<string[]>((resolve) => (seen = resolve))
  const subscription = await client.subscribe(
    { toolsListChanged: true },
    { onToolsChanged: (tools) => seen(tools.map((tool) => tool.name)) },
  )
  await client.callTool('hide_extra', {})
  expect(await changed).toEqual(['add', 'hide_extra'])
  await subscription.close()
}
