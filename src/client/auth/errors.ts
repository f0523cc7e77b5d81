import { ToolwireError, type ToolwireErrorCode } from '../../wire/toolwire-error.js'

/**
 * Why authorization failed. The message is for people; it never contains a token or a client secret.
 *
 * @example
 * ```ts
 * try {
 *   await client.callTool('notes_write', { text: 'hi' })
 * } catch (error) {
 *   if (error instanceof AuthorizationError && error.loginRequired) console.error('run `toolwire login` first')
 * }
 * ```
 */
export class AuthorizationError extends ToolwireError {
  override readonly name = 'AuthorizationError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_AUTHORIZATION'
  }
  /** The OAuth error code when an authorization server sent one (`invalid_grant` …). */
  readonly oauthError: string | undefined
  /** True when a user must authorize interactively (e.g. `toolwire login`) before this can work. */
  readonly loginRequired: boolean

  constructor(
    message: string,
    options: { cause?: unknown; oauthError?: string; loginRequired?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.oauthError = options.oauthError
    this.loginRequired = options.loginRequired ?? false
  }
}
