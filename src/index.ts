/**
 * toolwire: MCP 2026-07-28 tools, server side. Every export here is public API; named exports only.
 * This entry imports nothing from `node:*`, so it runs on any runtime with web-standard APIs. JSON-RPC, the
 * error table and the protocol constants are `toolwire/wire`.
 */
export { defineServer } from './server.js'
export type { CacheHints, Server, ServerOptions, TasksOptions } from './server.js'
export { defineTool } from './features/tools/define.js'
export type {
  TaskOptions,
  TaskSupport,
  ToolConfig,
  ToolContext,
  ToolDefinition,
  ToolReturn,
} from './features/tools/define.js'
export { MemoryTaskStore } from './features/tasks/memory-store.js'
export type {
  CreateOutcome,
  TaskAuth,
  TaskIdentity,
  TaskLimits,
  TaskRecord,
  TaskStatus,
  TaskStore,
  TaskTransition,
} from './features/tasks/store.js'
export type { UpstreamTaskRef } from './features/tasks/relayed.js'
export { TASKS_EXTENSION } from './features/tasks/wire.js'
export type { TaskControl } from './protocol/task-control.js'
export { ToolwireError } from './wire/toolwire-error.js'
export type { ToolwireErrorCode } from './wire/toolwire-error.js'
export { McpError } from './wire/errors.js'
export { ToolError } from './features/tools/errors.js'
export type { ErrorExposure } from './features/tools/errors.js'
export type { ToolSearchOptions } from './features/tools/search.js'
export { toolResult } from './features/tools/result.js'
export type { ToolResult } from './features/tools/result.js'
export { ToolDefinitionError } from './features/tools/compile.js'
export { definePrompt, PromptDefinitionError } from './features/prompts/define.js'
export type {
  Completer,
  PromptArgumentConfig,
  PromptConfig,
  PromptDefinition,
  PromptMessage,
  PromptReturn,
} from './features/prompts/define.js'
export {
  defineResource,
  defineResourceTemplate,
  ResourceDefinitionError,
  resourceNotFound,
} from './features/resources/define.js'
export type {
  ResourceConfig,
  ResourceDefinition,
  ResourceRead,
  ResourceTemplateConfig,
  ResourceTemplateDefinition,
} from './features/resources/define.js'
export { AppDefinitionError, clientSupportsApps, defineAppView } from './features/apps/view.js'
export type { AppViewConfig, AppViewDefinition, AppViewSource } from './features/apps/view.js'
export type { ToolUi } from './features/apps/tool-ui.js'
export { UI_EXTENSION, UI_MIME_TYPE } from './wire/apps.js'
export type {
  UiResourceCsp,
  UiResourceMeta,
  UiResourcePermissions,
  UiToolMeta,
  UiVisibility,
} from './wire/apps.js'
export { compileUriTemplate, UriTemplateError } from './features/resources/uri-template.js'
export type { UriTemplate } from './features/resources/uri-template.js'
export { CatalogError } from './features/catalog.js'
export { defineSkill, prepareSkills, SKILL_LIMITS, SkillDefinitionError } from './features/skills/define.js'
export type { SkillConfig, SkillDefinition, SkillFile, SkillLimits } from './features/skills/define.js'
export type { SkillFrontmatter } from './wire/skill-frontmatter.js'
export { SKILLS_EXTENSION } from './wire/skill-digest.js'
export type { ServerCardOptions } from './features/server-card.js'
export type {
  ServerCard,
  ServerCardHeader,
  ServerCardInput,
  ServerCardRemote,
  ServerCardRepository,
} from './wire/server-card.js'
export { InProcessChangeBus } from './features/subscriptions/bus.js'
export type { ChangeBus, ChangeEvent } from './features/subscriptions/bus.js'
export type { ListenOptions } from './features/subscriptions/listen.js'
export { inputRequest } from './protocol/mrtr/inputs.js'
export type { RequestInputs } from './protocol/mrtr/inputs.js'
export type { RequestStateOptions } from './protocol/mrtr/state.js'
export { jsonSchema } from './schema/standard.js'
export type { InferSchema, SchemaInput, StandardSchemaWithJson } from './schema/standard.js'
export { SchemaError } from './schema/json-schema.js'
export type { SchemaValidatorChoice } from './schema/json-schema.js'
export type { AbortSource, RequestContext, RequestLogger } from './protocol/context.js'
export {
  authPrincipal,
  ownerKey,
  type OwnerKey,
  type Principal,
  type PrincipalKind,
} from './protocol/principal.js'
export type { AuthInfo, Exchange } from './protocol/exchange.js'
export type { Middleware, Next } from './protocol/middleware.js'
export type { ServerLogger } from './protocol/dispatcher.js'
export type { ResultPayload } from './protocol/encode.js'
export { createFetchHandler } from './transports/http/fetch.js'
export type { FetchHandler, FetchHandlerOptions } from './transports/http/fetch.js'
export type { HttpOptions, HttpRequestView } from './transports/http/core.js'
export type {
  AuthOutcome,
  AuthRequest,
  HttpAuthenticator,
  HttpDocument,
  RequestHandler,
  ServerCardSource,
} from './protocol/handler.js'
export type { OriginPolicy } from './transports/http/guard.js'
export type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  CacheScope,
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitRequestFormParams,
  ElicitRequestUrlParams,
  ElicitResult,
  EmbeddedResource,
  Icon,
  ImageContent,
  Implementation,
  InputRequest,
  InputResponse,
  JsonObject,
  JsonSchemaObject,
  JsonValue,
  ListRootsRequest,
  ListRootsResult,
  ResourceContents,
  ResourceLink,
  Root,
  SamplingMessage,
  ServerCapabilities,
  TextContent,
  TextResourceContents,
  Tool,
  ToolAnnotations,
} from './wire/types.js'
export { bearerAuth } from './security/auth/bearer.js'
export type { BearerAuth, BearerAuthOptions } from './security/auth/bearer.js'
export { jwtVerifier } from './security/auth/jwt.js'
export type { JwtVerifierOptions } from './security/auth/jwt.js'
export { InvalidTokenError } from './security/auth/verifier.js'
export type { TokenVerifier } from './security/auth/verifier.js'
export { SECURITY_DEFAULTS } from './security/options.js'
export type { RateLimitOptions, SecurityOptions } from './security/options.js'
export { MemoryRateLimitStore } from './security/rate-limit.js'
export type { Bucket, Consumed, Limit, RateLimitStore } from './security/rate-limit.js'
export { stripControls } from './security/sanitize.js'
export { defineHandles } from './handles/handles.js'
export type { HandleKind, HandleKindOptions } from './handles/handles.js'
export { MemoryHandleStore } from './handles/memory.js'
export { HandleLimitError } from './handles/store.js'
export type { HandleStore, SwapOutcome } from './handles/store.js'
export type { SessionRecord, SessionStateStore } from './features/subscriptions/session-store.js'
export type { TelemetryOption, TelemetryOptions } from './wire/telemetry.js'
