/** Why authorization failed. The message is for people; it never contains a token or a client secret. */
export class AuthorizationError extends Error {
  override readonly name = 'AuthorizationError'
  /** The OAuth error code when an authorization server sent one (`invalid_grant` …). */
  readonly oauthError: string | undefined

  constructor(message: string, options: { cause?: unknown; oauthError?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.oauthError = options.oauthError
  }
}
