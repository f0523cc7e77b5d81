/** Secret values that must never appear in anything the server sends (results, errors, notifications, logs). */

/** Environment variable names whose values are treated as secrets by default. */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL/i
/** Names that describe a secret rather than hold one: `ACCESS_TOKEN_LIFETIME_MS`, `TOKEN_URL`, `SECRET_FILE` … */
const SETTING_NAME =
  /LIFETIME|TTL|EXPIR|TIMEOUT|_MS$|_SEC(ONDS)?$|_MIN(UTES)?$|_HOURS?$|_DAYS?$|SIZE|LENGTH|LIMIT|COUNT|_URL$|_URI$|ENDPOINT|_HOST$|_PORT$|_PATH$|_FILE$|_DIR$|_TYPE$|_NAME$|_HEADER$|_ALG(ORITHM)?$|_ENABLED$|_MODE$/i
/**
 * A value worth matching is long and not a plain number, word or flag: a short or numeric value (a
 * lifetime, a port, `true`) appears in ordinary output far more often than it leaks.
 */
const MIN_SECRET_LENGTH = 12
const ORDINARY_VALUE = /^(?:[-+]?[\d.,_:e]+|true|false|yes|no|on|off|none|null|disabled|enabled)$/i
export const REDACTED = '[redacted]'

/** Whether an environment variable looks like it holds a secret worth redacting. */
export function isSecretVariable(name: string, value: string | undefined): value is string {
  if (value === undefined || value.length < MIN_SECRET_LENGTH) return false
  if (!SECRET_NAME.test(name) || SETTING_NAME.test(name)) return false
  return !ORDINARY_VALUE.test(value.trim())
}

/** Values of secret-looking environment variables (see `isSecretVariable`), where an environment exists. */
export function secretsFromEnvironment(): string[] {
  let env: Record<string, string | undefined> | undefined
  try {
    env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  } catch {
    return [] // runtimes that guard the environment behind a permission
  }
  if (!env) return []
  return Object.entries(env)
    .filter(([name, value]) => isSecretVariable(name, value))
    .map(([, value]) => value as string)
}

/** Replaces every configured secret inside a string by `[redacted]`; undefined when there is none. */
export type Redactor = (text: string) => string

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export function createRedactor(secrets: readonly string[]): Redactor | undefined {
  // Shorter values would mangle ordinary text more than they protect anything.
  const kept = [...new Set(secrets.filter((secret) => secret.length >= 4))]
  if (kept.length === 0) return undefined
  const pattern = new RegExp(
    kept
      .sort((a, b) => b.length - a.length)
      .map(escapeRegex)
      .join('|'),
    'g',
  )
  return (text) => (text.length === 0 ? text : text.replace(pattern, REDACTED))
}
