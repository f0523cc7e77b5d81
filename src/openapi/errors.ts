/** The one error `fromOpenAPI` throws: the document, or some of its operations, cannot become valid tools. */
import { ToolwireError, type ToolwireErrorCode } from '../wire/toolwire-error.js'

/** One operation that cannot become a tool, and why. `operation` is `"GET /pets/{id}"` or `"document"`. */
export interface OpenAPIProblem {
  readonly operation: string
  readonly reason: string
}

/** How many problems the message lists; `problems` holds them all. */
const LISTED = 20

/**
 * An OpenAPI document that cannot be read, or operations that cannot become valid tools. `problems` names
 * each operation (`"GET /pets/{id}"`, with its operationId when it has one) and the reason.
 *
 * @example
 * ```ts
 * try {
 *   await fromOpenAPI('./api.yaml')
 * } catch (error) {
 *   if (error instanceof OpenAPIError) for (const p of error.problems) console.error(p.operation, p.reason)
 * }
 * ```
 */
export class OpenAPIError extends ToolwireError {
  override readonly name = 'OpenAPIError'
  readonly problems: readonly OpenAPIProblem[]

  constructor(problems: readonly OpenAPIProblem[], options?: ErrorOptions) {
    const lines = problems.slice(0, LISTED).map((problem) => `  ${problem.operation}: ${problem.reason}`)
    if (problems.length > LISTED) lines.push(`  … and ${problems.length - LISTED} more`)
    const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`
    super(`The OpenAPI document has ${count}:\n${lines.join('\n')}`, options)
    this.problems = problems
  }

  override get errorCode(): ToolwireErrorCode {
    return 'ERR_OPENAPI'
  }
}
