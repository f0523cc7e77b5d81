/**
 * `toolwire/openapi`: any HTTP API described by OpenAPI 3.0, 3.1 or Swagger 2.0 as MCP tools. A separate
 * entry, so the document parser is loaded only by those who use it.
 */
export { fromOpenAPI } from './from-openapi.js'
export type { OpenAPIOptions, OpenAPIWarning } from './options.js'
export { OpenAPIError, type OpenAPIProblem } from './errors.js'
export { DocumentLoadError } from '../wire/document-load-error.js'
export type { DocumentLimits } from '../wire/document-loader.js'
export type { OpenAPIAuth, OAuthFetcher, OutgoingRequest } from './auth.js'
export type { OperationFilter, OperationInfo, Rename } from './operations.js'
