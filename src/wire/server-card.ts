/**
 * MCP Server Cards (extension io.modelcontextprotocol/server-card, SEP-2127): the document's types and its JSON
 * Schema, shared by the server that publishes a card and the client that checks one. The schema is the
 * extension's generated `schema.json` (JSON Schema 2020-12, Apache-2.0, modelcontextprotocol/experimental-ext-server-card)
 * with its descriptions left out; `$ref` points at the `ServerCard` definition.
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

/** The card's JSON Schema. */
export const SERVER_CARD_SCHEMA: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $defs: {
    Icon: {
      properties: {
        mimeType: {
          type: 'string',
        },
        sizes: {
          items: {
            type: 'string',
          },
          type: 'array',
        },
        src: {
          format: 'uri',
          type: 'string',
        },
        theme: {
          enum: ['dark', 'light'],
          type: 'string',
        },
      },
      required: ['src'],
      type: 'object',
    },
    Input: {
      properties: {
        choices: {
          items: {
            type: 'string',
          },
          type: 'array',
        },
        default: {
          type: 'string',
        },
        description: {
          type: 'string',
        },
        format: {
          enum: ['boolean', 'filepath', 'number', 'string'],
          type: 'string',
        },
        isRequired: {
          type: 'boolean',
        },
        isSecret: {
          type: 'boolean',
        },
        placeholder: {
          type: 'string',
        },
        value: {
          type: 'string',
        },
      },
      type: 'object',
    },
    KeyValueInput: {
      properties: {
        choices: {
          items: {
            type: 'string',
          },
          type: 'array',
        },
        default: {
          type: 'string',
        },
        description: {
          type: 'string',
        },
        format: {
          enum: ['boolean', 'filepath', 'number', 'string'],
          type: 'string',
        },
        isRequired: {
          type: 'boolean',
        },
        isSecret: {
          type: 'boolean',
        },
        name: {
          type: 'string',
        },
        placeholder: {
          type: 'string',
        },
        value: {
          type: 'string',
        },
        variables: {
          additionalProperties: {
            $ref: '#/$defs/Input',
          },
          type: 'object',
        },
      },
      required: ['name'],
      type: 'object',
    },
    MetaObject: {
      additionalProperties: {},
      type: 'object',
    },
    Remote: {
      properties: {
        headers: {
          items: {
            $ref: '#/$defs/KeyValueInput',
          },
          type: 'array',
        },
        supportedProtocolVersions: {
          items: {
            type: 'string',
          },
          type: 'array',
        },
        type: {
          enum: ['sse', 'streamable-http'],
          type: 'string',
        },
        url: {
          pattern: '^(https?://[^\\s]+|\\{[a-zA-Z_][a-zA-Z0-9_]*\\}[^\\s]*)$',
          type: 'string',
        },
        variables: {
          additionalProperties: {
            $ref: '#/$defs/Input',
          },
          type: 'object',
        },
      },
      required: ['type', 'url'],
      type: 'object',
    },
    Repository: {
      properties: {
        id: {
          type: 'string',
        },
        source: {
          type: 'string',
        },
        subfolder: {
          type: 'string',
        },
        url: {
          format: 'uri',
          type: 'string',
        },
      },
      required: ['source', 'url'],
      type: 'object',
    },
    ServerCard: {
      properties: {
        $schema: {
          format: 'uri',
          pattern: '^https://static\\.modelcontextprotocol\\.io/schemas/v1/server-card\\.schema\\.json$',
          type: 'string',
        },
        _meta: {
          $ref: '#/$defs/MetaObject',
        },
        description: {
          maxLength: 100,
          minLength: 1,
          type: 'string',
        },
        icons: {
          items: {
            $ref: '#/$defs/Icon',
          },
          type: 'array',
        },
        name: {
          maxLength: 200,
          minLength: 3,
          pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$',
          type: 'string',
        },
        remotes: {
          items: {
            $ref: '#/$defs/Remote',
          },
          type: 'array',
        },
        repository: {
          $ref: '#/$defs/Repository',
        },
        title: {
          maxLength: 100,
          minLength: 1,
          type: 'string',
        },
        version: {
          maxLength: 255,
          type: 'string',
        },
        websiteUrl: {
          format: 'uri',
          type: 'string',
        },
      },
      required: ['$schema', 'description', 'name', 'version'],
      type: 'object',
    },
  },
  $ref: '#/$defs/ServerCard',
}
