/** The error the document loader (document-loader.ts) throws: a load-time fetch refused or failed. */
import { ToolwireError, type ToolwireErrorCode } from './toolwire-error.js'

/**
 * A document, or a file or URL it references, could not be loaded: refused by the loader's rules (another
 * origin, a file outside the document's folder, a private address, a limit passed) or failed to read.
 * `fromOpenAPI` reports it as the `document` problem of its `OpenAPIError`, with this error as the `cause`.
 *
 * @example
 * ```ts
 * try {
 *   await fromOpenAPI('https://api.example.com/openapi.json')
 * } catch (error) {
 *   if (error instanceof OpenAPIError && error.cause instanceof DocumentLoadError) console.error(error.cause.message)
 * }
 * ```
 */
export class DocumentLoadError extends ToolwireError {
  override readonly name = 'DocumentLoadError'

  override get errorCode(): ToolwireErrorCode {
    return 'ERR_DOCUMENT_LOAD'
  }
}
