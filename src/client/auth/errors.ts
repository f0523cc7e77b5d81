/** Why authorization failed. The message is for people; it never contains a token or a client secret. */
export class AuthorizationError extends Error {
  override readonly name = 'AuthorizationError'
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
