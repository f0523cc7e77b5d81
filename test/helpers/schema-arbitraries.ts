/**
 * fast-check generators for the schema differential test: random JSON Schemas (many distinct patterns,
 * formats, local `$ref`s, nested objects and arrays, enum/const, numeric bounds, patternProperties, additionalProperties,
 * oneOf/anyOf), and instances drawn from each schema, biased to land on both sides of every keyword
 * (strings from a pattern's language and from outside it, numbers on and beside each bound).
 */
import fc from 'fast-check'

export type Schema = Record<string, unknown>

/** Pattern pieces both engines accept with one meaning (ECMAScript with `u`, and RE2 after translation). */
const ATOMS = [
  'a',
  'b',
  'z',
  '0',
  '7',
  '-',
  '_',
  '/',
  '\\.',
  '\\d',
  '\\w',
  '\\s',
  '\\S',
  '\\D',
  '\\W',
  '.',
  '[a-c]',
  '[^a-c]',
  '[0-9a-f]',
  '[\\s\\d]',
  '[\\S]',
  '[^\\s]',
  '[\\Sa]',
  'é',
  '\\u00e9',
  '\\u{1F600}',
  '😀',
  '\\uD83D\\uDE00',
  '[^😀]',
  '(?:ab|c)',
  '(?:\\d|x)',
  '\\bx',
]
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{1,3}', '{2}', '*?']

const sequence = fc
  .array(fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS)), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.map(([atom, quantifier]) => atom + quantifier).join(''))

export const patternArb: fc.Arbitrary<string> = fc
  .tuple(fc.boolean(), sequence, fc.option(sequence, { nil: undefined }), fc.boolean())
  .map(([start, first, second, end]) => {
    const body = second === undefined ? first : `(?:${first}|${second})`
    return `${start ? '^' : ''}${body}${end ? '$' : ''}`
  })

/** Characters on either side of `\s`, `\w`, `.`, surrogates and line terminators. */
const ALPHABET = ['a', 'b', 'c', 'z', 'x', 'A', '0', '7', '9', '-', '_', '/', '.', '@', ':', ' ']
const TRICKY = ['\t', '\n', '\u00a0', '\u2028', '\ufeff', 'é', '😀', '\uD83D', '\uDE00', 'Ω']
const offString = fc.string({
  unit: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ALPHABET) }, fc.constantFrom(...TRICKY)),
  maxLength: 6,
})

/** Valid and invalid examples per string format, where the two validators' own checks used to part. */
export const FORMAT_EXAMPLES: Record<string, readonly string[]> = {
  date: ['2024-02-29', '2023-02-29', '2024-13-01', '2024-1-01'],
  time: ['10:00:00Z', '10:00:00', '23:59:60Z', '10:00:00.5+02:00', '25:00:00Z'],
  'date-time': [
    '2024-01-01T10:00:00Z',
    '2024-01-01t10:00:00z',
    '2024-01-01 10:00:00Z',
    '2024-01-01T10:00:00',
    '2016-12-31T23:59:60Z',
    '2024-01-01T10:00:00+01:00',
  ],
  duration: ['P1D', 'PT1H', 'P', 'P1W', 'P1DT', 'PT1.5S', 'P1Y2M'],
  email: ['a@b.example', 'a@b', 'a b@c.example', '"x y"@z.example', 'a@[127.0.0.1]', '.a@b.example'],
  hostname: ['a.example', '-a.example', 'a_b.example', `${'a'.repeat(64)}.example`, 'xn--bcher-kva.example'],
  ipv4: ['127.0.0.1', '01.1.1.1', '256.0.0.1', '1.1.1'],
  ipv6: ['::1', '1::2::3', 'fe80::1%eth0', '::ffff:1.2.3.4'],
  uri: ['https://a.example/x?y#z', 'a:b', '//a.example', 'not a uri', 'urn:isbn:123', 'http://[::1]/'],
  'uri-reference': ['/a/b', '../x', '#f', 'a b', 'http://a.example'],
  'uri-template': ['http://a.example/{x}', '{', 'http://a.example/{x'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000', '123e4567e89b12d3a456426614174000', 'x'],
  'json-pointer': ['', '/a/b', 'a', '/~2', '/~0'],
  'relative-json-pointer': ['0', '1/a', '-1', '0#'],
  regex: ['^a+$', '(', '[a-'],
  url: ['https://a.example', 'a.example', 'ftp://a.example/x'],
}

const NUMBERS = [0, 1, -1, 2, 3, 7, 10, -7.5, 0.1, 0.3, 0.5, 1.13, 1.5, 2.5, 2 ** 53, 1e21, 1e300]
const BOUNDS = [-5, 0, 1, 2.5, 3, 10]
const DIVISORS = [2, 3, 0.5, 0.1, 0.01]
const VALUES: unknown[] = ['a', 'b', 1, 2.5, null, true, false, { x: 1 }, [1, 2], '']
/** Property names, with some every object inherits (`{}` has a `constructor`, but not as its own key). */
const NAMES = ['a', 'b', 'c', 'id', 'constructor', 'toString']

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined })
const defined = (record: Record<string, unknown>): Schema =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined))

const stringSchema = fc
  .record({
    pattern: maybe(patternArb),
    format: maybe(fc.constantFrom(...Object.keys(FORMAT_EXAMPLES))),
    minLength: maybe(fc.integer({ min: 0, max: 3 })),
    maxLength: maybe(fc.integer({ min: 1, max: 6 })),
  })
  .map((keywords) => defined({ type: 'string', ...keywords }))

const numberSchema = fc
  .record({
    type: fc.constantFrom('number', 'integer'),
    minimum: maybe(fc.constantFrom(...BOUNDS)),
    maximum: maybe(fc.constantFrom(...BOUNDS)),
    exclusiveMinimum: maybe(fc.constantFrom(...BOUNDS)),
    exclusiveMaximum: maybe(fc.constantFrom(...BOUNDS)),
    multipleOf: maybe(fc.constantFrom(...DIVISORS)),
  })
  .map(defined)

const leafSchema: fc.Arbitrary<Schema> = fc.oneof(
  { weight: 4, arbitrary: stringSchema },
  { weight: 2, arbitrary: numberSchema },
  fc.constantFrom<Schema>({ type: 'boolean' }, { type: 'null' }, {}),
  fc.subarray(VALUES, { minLength: 1 }).map((values) => ({ enum: values })),
  fc.constantFrom(...VALUES).map((value) => ({ const: value })),
)

function nodeSchema(depth: number, refs: readonly string[]): fc.Arbitrary<Schema> {
  const leaf =
    refs.length > 0
      ? fc.oneof(
          { weight: 5, arbitrary: leafSchema },
          fc.constantFrom(...refs).map((ref) => ({ $ref: ref })),
        )
      : leafSchema
  if (depth <= 0) return leaf
  const child = nodeSchema(depth - 1, refs)
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 2, arbitrary: objectSchema(child) },
    fc
      .record({
        items: child,
        minItems: maybe(fc.integer({ min: 0, max: 2 })),
        maxItems: maybe(fc.integer({ min: 1, max: 4 })),
        uniqueItems: maybe(fc.boolean()),
      })
      .map((keywords) => defined({ type: 'array', ...keywords })),
    fc
      .tuple(fc.constantFrom('oneOf', 'anyOf'), fc.array(child, { minLength: 2, maxLength: 3 }))
      .map(([keyword, branches]) => ({ [keyword]: branches })),
  )
}

function objectSchema(child: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  return fc
    .record({
      properties: fc.dictionary(fc.constantFrom(...NAMES), child, { maxKeys: 4 }),
      required: fc.subarray(NAMES, { maxLength: 3 }),
      patternProperties: maybe(fc.dictionary(patternArb, child, { minKeys: 1, maxKeys: 2 })),
      additionalProperties: maybe(fc.oneof(fc.boolean(), child)),
    })
    .map(({ properties, required, patternProperties, additionalProperties }) =>
      defined({
        type: 'object',
        properties,
        required: required.length > 0 ? required : undefined,
        patternProperties,
        additionalProperties,
      }),
    )
}

/** The older dialects a schema may declare (2020-12 when it declares none). */
const DIALECTS = ['http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2019-09/schema']

/** A tool's schema: an object at the root (as `inputSchema` must be), `$defs` its `$ref`s point into. */
export const rootSchemaArb: fc.Arbitrary<Schema> = fc
  .tuple(fc.array(nodeSchema(1, []), { maxLength: 3 }), fc.constantFrom(undefined, undefined, ...DIALECTS))
  .chain(([defs, dialect]) => {
    const refs = defs.map((_, index) => `#/$defs/d${index}`)
    return objectSchema(nodeSchema(2, refs)).map((root) =>
      defined({
        $schema: dialect,
        ...root,
        $defs:
          defs.length === 0 ? undefined : Object.fromEntries(defs.map((def, index) => [`d${index}`, def])),
      }),
    )
  })

const isRecord = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const anyValue: fc.Arbitrary<unknown> = fc.constantFrom('x', 1, 2.5, null, true, [], {}, [1], { a: 1 })

/** Values for `schema`: mostly shaped by it (inside and outside each keyword), sometimes of another type. */
export function instanceArb(schema: unknown, root: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (!isRecord(schema) || depth > 6) return anyValue
  if (typeof schema.$ref === 'string') {
    const target = (root.$defs as Schema | undefined)?.[schema.$ref.slice('#/$defs/'.length)]
    return instanceArb(target, root, depth + 1)
  }
  return fc.oneof({ weight: 12, arbitrary: shaped(schema, root, depth) }, anyValue)
}

function shaped(schema: Schema, root: Schema, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.oneof(fc.constantFrom(...(schema.enum as unknown[])), anyValue)
  if ('const' in schema) return fc.oneof(fc.constant(schema.const), fc.constantFrom(...VALUES))
  for (const keyword of ['oneOf', 'anyOf']) {
    const branches = schema[keyword]
    if (Array.isArray(branches)) return fc.oneof(...branches.map((b) => instanceArb(b, root, depth + 1)))
  }
  switch (schema.type) {
    case 'string': {
      const options: fc.Arbitrary<string>[] = [offString]
      if (typeof schema.pattern === 'string') options.push(languageOf(schema.pattern))
      if (typeof schema.format === 'string') {
        options.push(fc.constantFrom(...(FORMAT_EXAMPLES[schema.format] ?? ['x'])))
      }
      return fc.oneof(...options)
    }
    case 'number':
    case 'integer': {
      const near = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']
        .map((keyword) => schema[keyword])
        .filter((bound): bound is number => typeof bound === 'number')
        .flatMap((bound) => [bound, bound - 1, bound + 0.5, bound * 3])
      return fc.oneof(fc.constantFrom(...NUMBERS, ...near), fc.integer({ min: -12, max: 12 }))
    }
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return fc.array(instanceArb(schema.items, root, depth + 1), { maxLength: 4 })
    case 'object':
      return objectInstanceArb(schema, root, depth)
    default:
      return anyValue
  }
}

/** Strings in a pattern's language (fast-check cannot generate for `\b`: there, strings without it). */
function languageOf(pattern: string): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern, 'u'), { maxLength: 8 })
  } catch {
    return fc.stringMatching(new RegExp(pattern.replaceAll('\\b', ''), 'u'), { maxLength: 8 })
  }
}

/** With `u`, a surrogate pair is one code point outside this range: only an unpaired half is in it. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/** An object for an object schema: some declared properties, some extra ones; never another type. */
export function objectInstanceArb(schema: Schema, root: Schema, depth = 0): fc.Arbitrary<Schema> {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  const additional = isRecord(schema.additionalProperties) ? schema.additionalProperties : undefined
  // Required names are left out now and then, optional ones more often; undeclared required ones appear too.
  const declared = [
    ...Object.entries(properties).map(([name, sub]) => [name, instanceArb(sub, root, depth + 1)] as const),
    ...[...required]
      .filter((name) => !Object.hasOwn(properties, name))
      .map((name) => [name, additional ? instanceArb(additional, root, depth + 1) : anyValue] as const),
  ].map(([name, value]) =>
    fc.option(
      value.map((item) => [name, item] as const),
      { nil: undefined, freq: required.has(name) ? 12 : 3 },
    ),
  )
  const patterned = Object.entries(isRecord(schema.patternProperties) ? schema.patternProperties : {}).map(
    ([pattern, sub]) => fc.tuple(fc.oneof(languageOf(pattern), offString), instanceArb(sub, root, depth + 1)),
  )
  const extra = fc.array(
    fc.oneof(
      fc.tuple(
        fc.constantFrom(...NAMES, 'extra'),
        additional ? instanceArb(additional, root, depth + 1) : anyValue,
      ),
      ...patterned,
    ),
    { maxLength: 3 },
  )
  return fc.tuple(fc.tuple(...declared), extra).map(([entries, more]) =>
    Object.fromEntries(
      [...more, ...entries.filter((entry): entry is readonly [string, unknown] => entry !== undefined)]
        // `__proto__` keys are covered by proto-keys.test.ts (ajv, one of the differential's references, skips
        // such a property in `properties`); a key holding a lone surrogate makes the interpreting validator give up on the value (schema-differential.test.ts).
        .filter(([name]) => name !== '__proto__' && !LONE_SURROGATE.test(name)),
    ),
  )
}
