/** Secret values that must never appear in anything the server sends (results, errors, notifications, logs). */

/** Environment variable names whose values are treated as secrets by default. */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL/i
const MIN_SECRET_LENGTH = 8
export const REDACTED = '[redacted]'

/** Values of secret-looking environment variables (at least 8 characters), where an environment exists. */
export function secretsFromEnvironment(): string[] {
  let env: Record<string, string | undefined> | undefined
  try {
    env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  } catch {
    return [] // runtimes that guard the environment behind a permission
  }
  if (!env) return []
  return Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && (value?.length ?? 0) >= MIN_SECRET_LENGTH)
    .map(([, value]) => value as string)
}

export interface Redactor {
  /** For plain text (log lines). */
  readonly text: (text: string) => string
  /** For JSON text: matches the secret as JSON escapes it, also inside JSON nested in a string. */
  readonly json: (json: string) => string
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1)

function replacer(forms: Iterable<string>): (text: string) => string {
  const sorted = [...new Set(forms)].sort((a, b) => b.length - a.length)
  const pattern = new RegExp(sorted.map(escapeRegex).join('|'), 'g')
  return (text) => (text.length === 0 ? text : text.replace(pattern, REDACTED))
}

/** Replaces every configured secret by `[redacted]`; undefined when there is none. */
export function createRedactor(secrets: readonly string[]): Redactor | undefined {
  // Shorter values would mangle ordinary text more than they protect anything.
  const kept = secrets.filter((secret) => secret.length >= 4)
  if (kept.length === 0) return undefined
  return {
    text: replacer(kept),
    json: replacer(kept.flatMap((secret) => [jsonEscaped(secret), jsonEscaped(jsonEscaped(secret))])),
  }
}
