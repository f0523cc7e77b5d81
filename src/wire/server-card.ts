/**
 * MCP Server Cards (extension io.modelcontextprotocol/server-card, SEP-2127): the document's types and its JSON
 * Schema, shared by the server that publishes a card and the client that checks one.
 */
import type { Icon, JsonObject } from './types.js'

/** The `$schema` every card names. */
export const SERVER_CARD_SCHEMA_URL =
  'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json'

/**
 * The media type of a card (Server Cards discovery §MCP Server Cards).
 *
 * @example
 * ```ts
 * const response = await fetch(`${endpoint}/server-card`, { headers: { accept: SERVER_CARD_MEDIA_TYPE } })
 * ```
 */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json'

/** Where a server hosts its card, relative to its Streamable HTTP endpoint (discovery §Hosted Server Card Location). */
export const SERVER_CARD_SUFFIX = '/server-card'

/** A user-supplied or pre-set value of a remote's URL variable or header. */
export interface ServerCardInput {
  description?: string
  isRequired?: boolean
  isSecret?: boolean
  format?: 'string' | 'number' | 'boolean' | 'filepath'
  default?: string
  placeholder?: string
  value?: string
  choices?: string[]
}

/** A header a remote requires or accepts. */
export interface ServerCardHeader extends ServerCardInput {
  name: string
  variables?: Record<string, ServerCardInput>
}

/** One remote endpoint of the server. */
export interface ServerCardRemote {
  type: 'streamable-http' | 'sse'
  url: string
  headers?: ServerCardHeader[]
  variables?: Record<string, ServerCardInput>
  supportedProtocolVersions?: string[]
}

/** Where the server's source lives. */
export interface ServerCardRepository {
  url: string
  source: string
  subfolder?: string
  id?: string
}

/** A Server Card: identity and remote endpoints of an MCP server, for discovery before connecting. */
export interface ServerCard {
  $schema: string
  name: string
  version: string
  description: string
  title?: string
  websiteUrl?: string
  repository?: ServerCardRepository
  icons?: Icon[]
  remotes?: ServerCardRemote[]
  _meta?: JsonObject
  [key: string]: unknown
}

const string = { type: 'string' } as const
const boolean = { type: 'boolean' } as const
const uri = { type: 'string', format: 'uri' } as const
const text = (maxLength: number, minLength?: number): JsonObject => ({
  type: 'string',
  maxLength,
  ...(minLength === undefined ? {} : { minLength }),
})
const listOf = (items: JsonObject): JsonObject => ({ type: 'array', items })
const ref = (name: string): JsonObject => ({ $ref: `#/$defs/${name}` })

/** What a remote's URL variable and header values have in common (Server Cards §Remotes). */
const INPUT_PROPERTIES: JsonObject = {
  description: string,
  isRequired: boolean,
  isSecret: boolean,
  default: string,
  placeholder: string,
  value: string,
  choices: listOf(string),
  format: { type: 'string', enum: ['string', 'number', 'boolean', 'filepath'] },
}

/**
 * The card's JSON Schema (2020-12), written from the Server Cards specification's field rules: names are
 * reverse-DNS with one slash, descriptions and titles are short, a remote is a URL (or a `{variable}` URL) of
 * a known transport, and unknown members are allowed everywhere, as the extension evolves.
 */
export const SERVER_CARD_SCHEMA: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $defs: {
    Icon: {
      type: 'object',
      required: ['src'],
      properties: {
        src: uri,
        mimeType: string,
        sizes: listOf(string),
        theme: { type: 'string', enum: ['light', 'dark'] },
      },
    },
    Input: { type: 'object', properties: INPUT_PROPERTIES },
    // A header's value may itself name variables, like a remote's URL.
    KeyValueInput: {
      type: 'object',
      required: ['name'],
      properties: {
        ...INPUT_PROPERTIES,
        name: string,
        variables: { type: 'object', additionalProperties: ref('Input') },
      },
    },
    Remote: {
      type: 'object',
      required: ['type', 'url'],
      properties: {
        type: { type: 'string', enum: ['streamable-http', 'sse'] },
        url: { type: 'string', pattern: '^(https?://[^\\s]+|\\{[a-zA-Z_][a-zA-Z0-9_]*\\}[^\\s]*)$' },
        headers: listOf(ref('KeyValueInput')),
        variables: { type: 'object', additionalProperties: ref('Input') },
        supportedProtocolVersions: listOf(string),
      },
    },
    Repository: {
      type: 'object',
      required: ['url', 'source'],
      properties: { url: uri, source: string, id: string, subfolder: string },
    },
    ServerCard: {
      type: 'object',
      required: ['$schema', 'name', 'version', 'description'],
      properties: {
        $schema: {
          ...uri,
          pattern: '^https://static\\.modelcontextprotocol\\.io/schemas/v1/server-card\\.schema\\.json$',
        },
        name: { ...text(200, 3), pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
        version: text(255),
        description: text(100, 1),
        title: text(100, 1),
        websiteUrl: uri,
        repository: ref('Repository'),
        icons: listOf(ref('Icon')),
        remotes: listOf(ref('Remote')),
        _meta: { type: 'object' },
      },
    },
  },
  $ref: '#/$defs/ServerCard',
}
