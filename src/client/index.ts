/**
 * toolwire/client: use any MCP 2026-07-28 server over Streamable HTTP, or over any transport you pass in.
 * Imports nothing from `node:*`; the stdio transport is `toolwire/client/stdio`. Every export is public API.
 */
export type { Client, ClientOptions, ClientTarget, ListToolsResult, ToolCallOptions } from './client.js'
export type { SearchToolsOptions } from './tool-search.js'
export type { ToolCallAuditor, ToolCallOutcome, ToolCallRecord } from './audit.js'
export { connect } from './connect.js'
export { BudgetExceededError, DEFAULT_BUDGET } from './budget.js'
export type { BudgetLimit, BudgetLimits } from './budget.js'
export type {
  GetPromptResult,
  PromptArgumentInfo,
  PromptInfo,
  PromptMessage,
  ReadResourceResult,
  ResourceInfo,
  ResourceTemplateInfo,
} from './catalogs.js'
export { ToolwireError } from '../wire/toolwire-error.js'
export type { ToolwireErrorCode } from '../wire/toolwire-error.js'
export { McpError } from '../wire/errors.js'
export {
  InvalidResponseError,
  ProtocolError,
  RequestCancelledError,
  RequestTimeoutError,
  ToolExecutionError,
  TransportError,
  UnknownToolError,
  UrlElicitationRequiredError,
  VersionMismatchError,
} from './errors.js'
export type { RequiredUrl } from './errors.js'
export { HttpTransport } from './http.js'
export type { HeadersInput, HttpTransportOptions } from './http.js'
export type { InputContext, InputHandlers } from './input.js'
export { TaskHandle, TASKS_EXTENSION } from './tasks.js'
export {
  fetchSkill,
  getSkill,
  listSkills,
  readSkillFile,
  SKILL_CLIENT_LIMITS,
  SKILLS_EXTENSION,
  SkillVerificationError,
} from './skills.js'
export type {
  SkillCallOptions,
  SkillClientLimits,
  SkillEntry,
  SkillResource,
  VerifiedSkillFile,
} from './skills.js'
export type { SkillFrontmatter } from '../wire/skill-frontmatter.js'
export {
  checkServerCard,
  fetchServerCard,
  SERVER_CARD_MAX_BYTES,
  SERVER_CARD_MEDIA_TYPE,
  ServerCardError,
  serverCardUrl,
} from './server-card.js'
export type { FetchServerCardOptions } from './server-card.js'
export type {
  ServerCard,
  ServerCardHeader,
  ServerCardInput,
  ServerCardRemote,
  ServerCardRepository,
} from '../wire/server-card.js'
export {
  APP_VIEW_DEFAULTS,
  appToolVisibility,
  AppViewError,
  viewAllowAttribute,
  viewContentSecurityPolicy,
} from './app-view.js'
export type { AppView, AppViewOptions } from './app-view.js'
export { UI_EXTENSION, UI_MIME_TYPE } from '../wire/apps.js'
export type {
  UiResourceCsp,
  UiResourceMeta,
  UiResourcePermissions,
  UiToolMeta,
  UiVisibility,
} from '../wire/apps.js'
export type { TaskState, TaskStatus, WaitOptions } from './tasks.js'
export type { SubscribeOptions, Subscription, SubscriptionEnd } from './subscription.js'
export type { ClientTransport, SendOptions } from './transport.js'
export type { Cancellation } from './cancellation.js'
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
  LoggingMessageParams,
  ProgressNotificationParams,
  ResourceContents,
  ResourceLink,
  Root,
  SamplingMessage,
  ServerCapabilities,
  SubscriptionFilter,
  TextContent,
  TextResourceContents,
  Tool,
  ToolAnnotations,
} from '../wire/types.js'
export { AuthorizationError } from './auth/errors.js'
export { MemoryTokenStore } from './auth/memory-store.js'
export { OAuthProvider } from './auth/provider.js'
export { isPrivateAddress } from '../wire/private-address.js'
export type {
  ClientCredentials,
  ClientRecord,
  OAuthOptions,
  PreRegisteredClient,
  TokenRecord,
  TokenStore,
} from './auth/types.js'
export type { HttpAuth } from './http.js'
export type { TelemetryOption, TelemetryOptions } from '../wire/telemetry.js'
