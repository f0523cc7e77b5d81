#!/usr/bin/env node
/**
 * The client the official conformance suite spawns in client mode: `node scripts/conformance-client.mjs <url>` (also
 * `npm run conformance:client -- <url>`).
 * It reads MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT and exercises toolwire's client against the
 * suite's mock server: it lists tools, makes the calls the context names (or calls every listed tool with
 * arguments built from its schema), answers elicitations, and visits resources and prompts when offered.
 */
import { connect, fetchSkill, listSkills, ProtocolError } from '../dist/client/index.js'

const url = process.argv[process.argv.length - 1]
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ''
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}')

/** A value that satisfies a simple JSON Schema (conformance mocks use plain types). */
function sample(schema = {}) {
  if ('default' in schema) return schema.default
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  switch (type) {
    case 'string':
      return 'test'
    case 'integer':
      return 1
    case 'number':
      return 1.5
    case 'boolean':
      return true
    case 'array':
      return []
    case 'object':
      return sampleObject(schema)
    default:
      return 'test'
  }
}

function sampleObject(schema = {}) {
  const result = {}
  for (const name of schema.required ?? []) result[name] = sample(schema.properties?.[name])
  return result
}

const log = (message) => console.error(`[toolwire conformance client] ${message}`)

/**
 * OAuth for the auth/* scenarios. The suite's authorization server redirects at once (no user), so the
 * "browser" is a fetch that reads the redirect's Location: the callback URL with code, state and iss.
 */
function authOptions() {
  const options = {
    redirectUri: 'http://127.0.0.1:8090/callback',
    clientName: 'toolwire-conformance-client',
    // The suite expects this URL as the client id when the server supports Client ID Metadata Documents.
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    authorize: async (authorizationUrl) => {
      const response = await fetch(authorizationUrl, { redirect: 'manual' })
      const location = response.headers.get('location')
      if (!location)
        throw new Error(`the authorization endpoint answered HTTP ${response.status}, no redirect`)
      return new URL(location, authorizationUrl)
    },
  }
  if (scenario.startsWith('auth/client-credentials')) {
    return {
      ...options,
      clientCredentials: {
        clientId: context.client_id,
        ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
        ...(context.private_key_pem
          ? { privateKey: context.private_key_pem, algorithm: context.signing_algorithm ?? 'ES256' }
          : {}),
      },
    }
  }
  if (context.client_id && context.issuer) {
    return {
      ...options,
      preRegistered: [
        { issuer: context.issuer, clientId: context.client_id, clientSecret: context.client_secret },
      ],
    }
  }
  return options
}

const client = connect(
  { url },
  {
    clientInfo: { name: 'toolwire-conformance-client', version: '0.1.0' },
    warn: log,
    auth: authOptions(),
    handlers: {
      elicitation: (params) =>
        params.mode === 'url'
          ? { action: 'accept' }
          : {
              action: 'accept',
              content: sampleObject({
                ...params.requestedSchema,
                required: Object.keys(params.requestedSchema.properties ?? {}),
              }),
            },
      sampling: async () => ({
        role: 'assistant',
        content: { type: 'text', text: 'Paris' },
        model: 'conformance',
      }),
      roots: [{ uri: 'file:///tmp', name: 'tmp' }],
    },
  },
)

async function attempt(label, action) {
  try {
    return await action()
  } catch (error) {
    log(`${label}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`)
    return undefined
  }
}

async function main() {
  log(`scenario ${scenario} against ${url}`)
  const listed = await attempt('tools/list', () => client.listTools())
  const tools = listed?.tools ?? []
  if (Array.isArray(context.toolCalls) && context.toolCalls.length > 0) {
    for (const call of context.toolCalls) {
      await attempt(`tools/call ${call.name}`, () => client.callTool(call.name, call.arguments ?? {}))
    }
  } else {
    // json-schema-2020-12-preservation: echo another tool's inputSchema verbatim.
    const echoed = tools.find((t) => t.name === 'json_schema_2020_12_tool')
    for (const tool of tools) {
      const args =
        tool.name === 'json_schema_echo' && echoed
          ? { schema: echoed.inputSchema }
          : sampleObject(tool.inputSchema)
      await attempt(`tools/call ${tool.name}`, () => client.callTool(tool.name, args))
    }
  }
  if (scenario.startsWith('sep-2640-client-')) {
    // The Skills extension as a host uses it: list entries (reading nothing ahead of need); in the verify
    // scenarios the host then loads each skill, SKILL.md first, and stops at the first verification failure.
    const skills = (await attempt('skills/list', () => listSkills(client))) ?? []
    if (scenario !== 'sep-2640-client-no-prefetch')
      for (const skill of skills) await attempt(`load ${skill.uri}`, () => fetchSkill(client, skill))
  }
  if (scenario === 'http-standard-headers') {
    const resources = await attempt('resources/list', () => client.request('resources/list'))
    for (const resource of resources?.resources ?? []) {
      await attempt(`resources/read ${resource.uri}`, () =>
        client.request('resources/read', { uri: resource.uri }),
      )
    }
    const prompts = await attempt('prompts/list', () => client.request('prompts/list'))
    for (const prompt of prompts?.prompts ?? []) {
      const args = {}
      for (const argument of prompt.arguments ?? []) if (argument.required) args[argument.name] = 'test'
      await attempt(`prompts/get ${prompt.name}`, () =>
        client.request('prompts/get', { name: prompt.name, arguments: args }),
      )
    }
  }
  await client.close()
}

main().catch((error) => {
  log(error instanceof ProtocolError ? `protocol error ${error.code}: ${error.message}` : String(error))
  process.exit(1)
})
