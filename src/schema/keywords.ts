/**
 * Keywords toolwire decides itself inside ajv, the way the interpreting validator decides them, so a verdict
 * never depends on which validator checked the value:
 *
 * - `multipleOf` on the decimal values JSON carries (json-schema validation §6.2.1: valid if the division
 *   results in an integer). ajv divides in binary floating point, where 0.3 is no multiple of 0.1 and 1e300
 *   is one of 3.
 * - `const`, `enum` and `uniqueItems` by JSON equality of own keys. ajv's deep-equal calls a value's own
 *   `valueOf` or `toString` when it has one, so `{"toString": 0}` threw instead of being judged.
 */
import type { ErrorObject, FuncKeywordDefinition } from 'ajv'

/** `value` as an integer coefficient and a power of ten, from its shortest decimal form. */
function decimal(value: number): [bigint, number] {
  const [coefficient = '0', exponent = '0'] = Math.abs(value).toString().split('e')
  const point = coefficient.indexOf('.')
  const fraction = point === -1 ? 0 : coefficient.length - point - 1
  return [BigInt(coefficient.replace('.', '')), Number(exponent) - fraction]
}

export function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor <= 0) return false
  const [valueDigits, valueExponent] = decimal(value)
  const [divisorDigits, divisorExponent] = decimal(divisor)
  const shift = valueExponent - divisorExponent
  return shift >= 0
    ? (valueDigits * 10n ** BigInt(shift)) % divisorDigits === 0n
    : valueDigits % (divisorDigits * 10n ** BigInt(-shift)) === 0n
}

/** Equality of JSON values: same structure, own keys only, key order ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((item, index) => jsonEqual(item, b[index]))
  }
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  const keys = Object.keys(left)
  if (keys.length !== Object.keys(right).length) return false
  return keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
}

/** The first pair of equal items, `[earlier, later]`; primitives are found through a map, not pairwise. */
function duplicate(items: readonly unknown[]): [number, number] | undefined {
  const seen = new Map<string, number>()
  const objects: number[] = []
  for (const [index, item] of items.entries()) {
    if (typeof item === 'object' && item !== null) {
      const earlier = objects.find((other) => jsonEqual(items[other], item))
      if (earlier !== undefined) return [earlier, index]
      objects.push(index)
      continue
    }
    const key = `${typeof item}:${String(item)}`
    const earlier = seen.get(key)
    if (earlier !== undefined) return [earlier, index]
    seen.set(key, index)
  }
  return undefined
}

type Check<S> = ((schema: S, value: unknown) => boolean) & { errors?: Partial<ErrorObject>[] }

/** A function keyword whose failure reads as ajv's own message for it. */
function keyword<S>(
  name: string,
  schemaType: FuncKeywordDefinition['schemaType'],
  decide: (
    schema: S,
    value: unknown,
  ) => Omit<ErrorObject, 'keyword' | 'instancePath' | 'schemaPath'> | undefined,
  type?: 'number' | 'array',
): FuncKeywordDefinition {
  const check: Check<S> = (schema, value) => {
    const error = decide(schema, value)
    if (error) check.errors = [{ keyword: name, ...error }]
    return error === undefined
  }
  return {
    keyword: name,
    errors: true,
    validate: check,
    ...(schemaType && { schemaType }),
    ...(type && { type }),
  }
}

export const TOOLWIRE_KEYWORDS: readonly FuncKeywordDefinition[] = [
  keyword<number>(
    'multipleOf',
    'number',
    (divisor, value) =>
      isMultipleOf(value as number, divisor)
        ? undefined
        : { message: `must be multiple of ${divisor}`, params: { multipleOf: divisor } },
    'number',
  ),
  keyword<unknown[]>('enum', 'array', (allowed, value) =>
    allowed.some((option) => jsonEqual(option, value))
      ? undefined
      : { message: 'must be equal to one of the allowed values', params: { allowedValues: allowed } },
  ),
  keyword<unknown>('const', undefined, (allowed, value) =>
    jsonEqual(allowed, value)
      ? undefined
      : { message: 'must be equal to constant', params: { allowedValue: allowed } },
  ),
  keyword<boolean>(
    'uniqueItems',
    'boolean',
    (unique, value) => {
      const pair = unique ? duplicate(value as unknown[]) : undefined
      if (!pair) return undefined
      const [j, i] = pair // ajv's names: i the later item, j the earlier
      return {
        message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
        params: { i, j },
      }
    },
    'array',
  ),
]
