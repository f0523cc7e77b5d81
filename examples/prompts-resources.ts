// Prompts, resources, resource templates and completion, served and then used through the client.
import assert from 'node:assert/strict'
import {
  createFetchHandler,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineServer,
  resourceNotFound,
} from 'toolwire'
import { connect } from 'toolwire/client'

const files = ['src/index.ts', 'src/server.ts', 'README.md']
const pages = new Map([['intro', '# Introduction']])

// #region definitions
const review = definePrompt({
  name: 'review',
  arguments: [{ name: 'file', required: true, complete: (v) => files.filter((f) => f.startsWith(v)) }],
  handler: ({ file }) => `Review ${file} for bugs.`, // string, messages, or { description, messages }
})
const readme = defineResource({
  uri: 'docs://readme',
  name: 'readme',
  mimeType: 'text/markdown',
  read: () => '# toolwire',
})
const page = defineResourceTemplate({
  uriTemplate: 'docs://page/{slug}', // RFC 6570: {var} {+var} {/var} {.var} {#var} {?a,b}
  name: 'page',
  read: (uri, { slug }) => pages.get(slug ?? '') ?? Promise.reject(resourceNotFound(uri)),
})
const server = defineServer({ name: 'docs', version: '1.0.0', prompts: [review], resources: [readme, page] })
// #endregion definitions

const client = connect({
  url: 'http://test/mcp',
  fetch: createFetchHandler(server, { clientAddress: () => '127.0.0.1' }),
})
const prompt = await client.getPrompt('review', { file: 'src/server.ts' })
assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Review src/server.ts for bugs.' })
const read = await client.readResource('docs://page/intro')
assert.equal(
  read.contents[0] && 'text' in read.contents[0] ? read.contents[0].text : undefined,
  '# Introduction',
)
const completion = await client.request('completion/complete', {
  ref: { type: 'ref/prompt', name: 'review' },
  argument: { name: 'file', value: 'src/' },
})
assert.deepEqual((completion as { completion: { values: string[] } }).completion.values, [
  'src/index.ts',
  'src/server.ts',
])
await assert.rejects(client.readResource('docs://page/missing'))
await client.close()
console.log('prompts-resources: ok')
