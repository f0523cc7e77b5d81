/** Wire types of MCP revision 2026-07-28 used by toolwire's server and client (shapes of schema.json). */
import type { RequestId } from './jsonrpc.js'
import type { LogLevel } from './meta.js'

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: JsonValue }
export type MetaObject = Record<string, unknown>

export interface Icon {
  src: string
  mimeType?: string
  sizes?: string[]
  theme?: 'light' | 'dark'
}

export interface Implementation {
  name: string
  version: string
  title?: string
  description?: string
  websiteUrl?: string
  icons?: Icon[]
}

export interface ClientCapabilities {
  experimental?: Record<string, JsonObject>
  roots?: JsonObject
  sampling?: { context?: JsonObject; tools?: JsonObject }
  elicitation?: { form?: JsonObject; url?: JsonObject }
  extensions?: Record<string, JsonObject>
}

export interface ServerCapabilities {
  experimental?: Record<string, JsonObject>
  logging?: JsonObject
  completions?: JsonObject
  prompts?: { listChanged?: boolean }
  resources?: { subscribe?: boolean; listChanged?: boolean }
  tools?: { listChanged?: boolean }
  extensions?: Record<string, JsonObject>
}

/** The validated per-request `_meta` envelope. */
export interface RequestMeta {
  protocolVersion: string
  clientCapabilities: ClientCapabilities
  clientInfo?: Implementation
  logLevel?: LogLevel
  progressToken?: string | number
  /** The raw `_meta` object, for extension keys and trace context. */
  raw: MetaObject
}

export interface Annotations {
  audience?: ('user' | 'assistant')[]
  priority?: number
  lastModified?: string
}

interface ContentBase {
  annotations?: Annotations
  _meta?: MetaObject
}
export interface TextContent extends ContentBase {
  type: 'text'
  text: string
}
export interface ImageContent extends ContentBase {
  type: 'image'
  data: string
  mimeType: string
}
export interface AudioContent extends ContentBase {
  type: 'audio'
  data: string
  mimeType: string
}
export interface ResourceLink extends ContentBase {
  type: 'resource_link'
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  icons?: Icon[]
}
export interface TextResourceContents {
  uri: string
  mimeType?: string
  text: string
  _meta?: MetaObject
}
export interface BlobResourceContents {
  uri: string
  mimeType?: string
  blob: string
  _meta?: MetaObject
}
export type ResourceContents = TextResourceContents | BlobResourceContents
export interface EmbeddedResource extends ContentBase {
  type: 'resource'
  resource: ResourceContents
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource

export interface ToolAnnotations {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

export type JsonSchemaObject = { [key: string]: unknown }

export interface Tool {
  name: string
  title?: string
  description?: string
  icons?: Icon[]
  inputSchema: JsonSchemaObject & { type: 'object' }
  outputSchema?: JsonSchemaObject
  annotations?: ToolAnnotations
  _meta?: MetaObject
}

export type CacheScope = 'public' | 'private'

export interface CallToolResult {
  resultType?: 'complete'
  content: ContentBlock[]
  structuredContent?: unknown
  isError?: boolean
  _meta?: MetaObject
}

export interface ListToolsResult {
  resultType: 'complete'
  tools: Tool[]
  nextCursor?: string
  ttlMs: number
  cacheScope: CacheScope
  _meta?: MetaObject
}

export interface DiscoverResult {
  resultType: 'complete'
  supportedVersions: string[]
  capabilities: ServerCapabilities
  instructions?: string
  ttlMs: number
  cacheScope: CacheScope
  _meta?: MetaObject
}

/* ---- Multi round-trip requests ---- */

export interface ElicitRequestFormParams {
  mode?: 'form'
  message: string
  requestedSchema: {
    $schema?: string
    type: 'object'
    properties: Record<string, JsonSchemaObject>
    required?: string[]
  }
}
export interface ElicitRequestUrlParams {
  mode: 'url'
  message: string
  url: string
}
export interface ElicitRequest {
  method: 'elicitation/create'
  params: ElicitRequestFormParams | ElicitRequestUrlParams
}
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, string | number | boolean | string[]>
  _meta?: MetaObject
}
export interface SamplingMessage {
  role: 'user' | 'assistant'
  content: unknown
  _meta?: MetaObject
}
export interface CreateMessageRequest {
  method: 'sampling/createMessage'
  params: { messages: SamplingMessage[]; maxTokens: number; [key: string]: unknown }
}
export interface CreateMessageResult {
  role: 'user' | 'assistant'
  content: unknown
  model: string
  stopReason?: string
  _meta?: MetaObject
}
export interface ListRootsRequest {
  method: 'roots/list'
  params?: { _meta?: MetaObject }
}
export interface Root {
  uri: string
  name?: string
  _meta?: MetaObject
}
export interface ListRootsResult {
  roots: Root[]
  _meta?: MetaObject
}
export type InputRequest = ElicitRequest | CreateMessageRequest | ListRootsRequest
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult

export interface InputRequiredResult {
  resultType: 'input_required'
  inputRequests?: Record<string, InputRequest>
  requestState?: string
  _meta?: MetaObject
}

/* ---- Subscriptions ---- */

export interface SubscriptionFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
}

export interface ProgressNotificationParams {
  progressToken: string | number
  progress: number
  total?: number
  message?: string
}

export interface LoggingMessageParams {
  level: LogLevel
  logger?: string
  data: unknown
}

export interface CancelledNotificationParams {
  requestId: RequestId
  reason?: string
}
