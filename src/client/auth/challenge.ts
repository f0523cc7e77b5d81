/** Reads the Bearer (or DPoP) challenge of a 401 or 403 (RFC 6750 §3, RFC 9728 §5.1 `resource_metadata`). */

export interface BearerChallenge {
  /** The server also (or only) offered the DPoP scheme (RFC 9449 §7.1), so it accepts DPoP-bound tokens. */
  readonly dpop?: boolean
  readonly error?: string
  readonly scope?: string
  readonly resourceMetadata?: string
}

const PARAM = /([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)/y

/** The parameters of the `Bearer` challenge in a WWW-Authenticate header, or undefined when there is none. */
export function parseBearerChallenge(header: string | null): BearerChallenge | undefined {
  const bearer = parseChallenge(header, 'Bearer')
  const dpop = parseChallenge(header, 'DPoP')
  if (!dpop) return bearer
  return { ...(bearer ?? dpop), dpop: true }
}

/** The same for any scheme (`DPoP` challenges carry the same parameters, RFC 9449 §7.1). */
export function parseChallenge(header: string | null, scheme: string): BearerChallenge | undefined {
  if (!header) return undefined
  const start = new RegExp(`(?:^|,)\\s*${scheme}(?:\\s+|$)`, 'i').exec(header)
  if (!start) return undefined
  const params: Record<string, string> = {}
  let index = start.index + start[0].length
  for (;;) {
    while (index < header.length && /[\s,]/.test(header.charAt(index))) index++
    PARAM.lastIndex = index
    const match = PARAM.exec(header)
    if (!match) break // end of header, or the next challenge's scheme
    const [, name = '', raw = ''] = match
    const value = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw
    params[name.toLowerCase()] ??= value
    index = PARAM.lastIndex
  }
  return {
    ...(params.error === undefined ? {} : { error: params.error }),
    ...(params.scope === undefined ? {} : { scope: params.scope }),
    ...(params.resource_metadata === undefined ? {} : { resourceMetadata: params.resource_metadata }),
  }
}

export function scopeSet(scope: string | undefined): string[] {
  return scope ? scope.split(/\s+/).filter((s) => s.length > 0) : []
}
