/**
 * A differential property test of every place toolwire judges a value against a JSON Schema. Random schemas
 * (test/helpers/schema-arbitraries.ts), several in one server as in real servers, and random instances on
 * both sides of each keyword: toolwire's verdict must equal a reference verdict, a fresh ajv per schema with
 * plain `RegExp` patterns, on every path that can run:
 *
 * - the server's `inputSchema` and `outputSchema` checks over HTTP, with ajv (`auto` on Node) and with the
 *   interpreting validator (`jsonSchemaValidator: 'interpreted'`, as in a Worker);
 * - a schema's first uses before ajv has loaded (the interim validator, which hands rejections to ajv);
 * - the client's check of `structuredContent` against a server's `outputSchema` (untrusted: RE2 only);
 * - the CLI's check of an elicitation form's fields (untrusted).
 *
 * The reference differs from a stock ajv only where toolwire decides on purpose, identically in both of its
 * validators: own properties only (`ownProperties`), and `multipleOf`, `const`, `enum`, `uniqueItems` on
 * JSON values (src/schema/keywords.ts; the interpreting validator, written independently, must agree).
 * Schemas are 2020-12 mostly, draft-07 and 2019-09 now and then. Strings for patterns and formats, values
 * and keys, are drawn both inside and outside their language.
 * Excluded on purpose, as differences that stay:
 * - `__proto__` as a property name: ajv skips it in `properties` (toolwire interprets such schemas;
 *   proto-keys.test.ts checks them against an oracle);
 * - the numeric formats (`int32` …), which the interpreting validator does not check;
 * - object keys holding a lone UTF-16 surrogate (not interoperable, RFC 8259 §8.2): the interpreting
 *   validator cannot encode their JSON pointer and refuses the value ("schema cannot be applied"). The
 *   refusal is on the safe side, and on Node ajv judges the value again.
 *
 * Seeded per run; a failure prints the seed. Rerun one with SCHEMA_PROPERTY_SEED=<seed>.
 */
import AjvDraft07Module from 'ajv'
import Ajv2019Module from 'ajv/dist/2019.js'
import Ajv2020Module from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { connect, InvalidResponseError } from '../src/client/index.js'
import { fieldCheck } from '../src/cli/client/elicit.js'
import { createFetchHandler, defineServer, defineTool, jsonSchema, type Server } from '../src/index.js'
import { AjvEngine } from '../src/schema/ajv-engine.js'
import { AJV_MODULES } from '../src/schema/ajv-static.js'
import { dialectOf } from '../src/schema/json-schema.js'
import { TOOLWIRE_KEYWORDS } from '../src/schema/keywords.js'
import { scanSchema } from '../src/schema/scan.js'
import { SchemaValidator, type ValidatorPlan } from '../src/schema/schema-validator.js'
import { cleanValue } from '../src/security/output-guard.js'
import { meta, standardHeaders } from './helpers/http.js'
import { objectInstanceArb, rootSchemaArb, type Schema } from './helpers/schema-arbitraries.js'

const SEED = process.env.SCHEMA_PROPERTY_SEED
  ? Number(process.env.SCHEMA_PROPERTY_SEED)
  : Math.floor(Math.random() * 2 ** 31)
/**
 * Servers per test run (more: SCHEMA_PROPERTY_RUNS), each with 3 to 6 schemas; per schema, up to 4 valid and 4
 * invalid instances out of 12 to 24 drawn.
 */
const RUNS = Number(process.env.SCHEMA_PROPERTY_RUNS ?? 12)

interface Entry {
  readonly schema: Schema
  readonly instances: readonly Schema[]
}

const URL = 'http://127.0.0.1/mcp'
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

const serverArb: fc.Arbitrary<Entry[]> = fc.array(
  rootSchemaArb.chain((schema) =>
    fc
      .array(objectInstanceArb(schema, schema), { minLength: 12, maxLength: 24 })
      .map((instances) => ({ schema: json(schema), instances: instances.map(json) })),
  ),
  { minLength: 3, maxLength: 6 },
)

/** Up to four valid and four invalid instances, from candidates drawn for one schema. */
function balanced(candidates: readonly Schema[], judge: (value: unknown) => boolean): Schema[] {
  const valid = candidates.filter((candidate) => judge(candidate))
  const invalid = candidates.filter((candidate) => !judge(candidate))
  return [...valid.slice(0, 4), ...invalid.slice(0, 4)]
}

/** A fresh ajv for one schema, patterns as plain `RegExp` with `u`. */
function reference(schema: Schema): (value: unknown) => boolean {
  const options = {
    strict: false,
    validateFormats: true,
    ownProperties: true,
    validateSchema: false, // toolwire checked it against the meta-schema already
  }
  const dialect = dialectOf(schema)
  const ajv =
    dialect === '2020-12'
      ? new Ajv2020Module.default(options)
      : dialect === '2019-09'
        ? new Ajv2019Module.default(options)
        : new AjvDraft07Module.default(options)
  addFormatsModule.default(ajv as never)
  for (const definition of TOOLWIRE_KEYWORDS)
    ajv.removeKeyword(definition.keyword as string).addKeyword(definition)
  const validate = ajv.compile(schema)
  return (value) => validate(value)
}

/** Refused outputs are logged by design; here they are expected by the hundred. */
const QUIET = { error: () => undefined, warn: () => undefined }
const LOCAL = { clientAddress: () => '127.0.0.1' }

function toolServer(entries: readonly Entry[], validator: 'auto' | 'interpreted'): Server {
  return defineServer({
    name: 'verdicts',
    version: '1',
    logger: QUIET,
    jsonSchemaValidator: validator,
    tools: entries.flatMap(({ schema }, index) => [
      defineTool({ name: `in_${index}`, inputSchema: jsonSchema(schema), handler: () => 'ran' }),
      defineTool({
        name: `out_${index}`,
        inputSchema: jsonSchema<Schema>({ type: 'object' }),
        outputSchema: jsonSchema<Schema>(schema),
        handler: (args) => args,
      }),
    ]),
  })
}

/** A server that lists each schema as an outputSchema and returns whatever it is asked to. */
function echoServer(entries: readonly Entry[]): Server {
  const tools = entries.map(({ schema }, index) => ({
    name: `t_${index}`,
    inputSchema: { type: 'object' },
    outputSchema: schema,
  }))
  return defineServer({
    name: 'echo',
    version: '1',
    logger: QUIET,
    features: [
      {
        methods: {
          'tools/list': {
            handler: () => ({ resultType: 'complete', tools, ttlMs: 0, cacheScope: 'public' }),
          },
          'tools/call': {
            nameParam: 'name',
            handler: (ctx) => ({
              resultType: 'complete',
              content: [],
              structuredContent: (ctx.params.arguments as { value?: unknown }).value,
            }),
          },
        },
      },
    ],
  })
}

type Reply = { result?: Record<string, unknown>; error?: { code: number } }
type Call = (name: string, args: Schema) => Promise<Reply>

/** tools/call through a fetch handler, without the spec check of every answer the other tests make. */
const caller =
  (handle: (request: Request) => Promise<Response>): Call =>
  async (name, args) => {
    const params = { name, arguments: args, _meta: meta() }
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })
    const headers = standardHeaders('tools/call', params)
    return (await (await handle(new Request(URL, { method: 'POST', headers, body }))).json()) as Reply
  }

async function inputVerdict(call: Call, index: number, instance: Schema): Promise<boolean | string> {
  const reply = await call(`in_${index}`, instance)
  const result = reply.result as { isError?: boolean; content?: { text?: string }[] } | undefined
  const text = result?.content?.[0]?.text ?? ''
  if (result?.isError === true && text.startsWith('Invalid arguments')) return false
  if (result && result.isError !== true && text === 'ran') return true
  return `unexpected answer ${JSON.stringify(reply)}`
}

async function outputVerdict(call: Call, index: number, instance: Schema): Promise<boolean | string> {
  const reply = await call(`out_${index}`, instance)
  if (reply.result) {
    expect(reply.result.structuredContent).toEqual(instance) // sent as the handler returned it
    return true
  }
  return reply.error?.code === -32603 ? false : `unexpected answer ${JSON.stringify(reply)}`
}

/** Checks one server's worth of schemas on every path; returns the disagreements and the pairs checked. */
interface Tally {
  schemas: number
  pairs: number
  valid: number
  fields: number
  checks: number
}

async function disagreements(entries: readonly Entry[], tally: Tally): Promise<object[]> {
  const found: object[] = []
  const expectSame = (path: string, schema: Schema, value: unknown, want: boolean, got: boolean | string) => {
    tally.checks++
    if (got !== want) found.push({ path, schema, value, reference: want, toolwire: got })
  }
  tally.schemas += entries.length
  const servers = (['auto', 'interpreted'] as const).map((validator) => {
    return { validator, call: caller(createFetchHandler(toolServer(entries, validator), LOCAL)) }
  })
  const client = connect({
    url: URL,
    fetch: createFetchHandler(echoServer(entries), LOCAL),
  })
  await client.listTools()
  const engine = new AjvEngine(AJV_MODULES, false) // one ajv for every schema, as in a server
  for (const [index, { schema, instances }] of entries.entries()) {
    const judge = reference(schema)
    // A schema's first uses before ajv has loaded: the interpreting validator is at hand, and ajv can be
    // loaded on demand (as the compiler plans it, json-schema.ts).
    const scan = scanSchema(schema, false)
    const dialect = dialectOf(schema)
    const plan: ValidatorPlan = {
      engine: 'ajv',
      eager: dialect !== '2020-12' || scan.references,
      interimAllowed: !scan.nativeRegExps,
      ajv: (now: boolean) => (now ? engine : undefined),
    }
    const beforeAjv = () => new SchemaValidator(schema, dialect, plan)
    let interim = beforeAjv()
    for (const instance of balanced(instances, judge)) {
      const want = judge(instance)
      const sanitised = cleanValue(instance) !== instance
      tally.pairs++
      if (want) tally.valid++
      for (const { validator, call } of servers) {
        expectSame(
          `server ${validator} input`,
          schema,
          instance,
          want,
          await inputVerdict(call, index, instance),
        )
        // A result's strings are cleaned before they are sent, and the cleaned value is checked again
        // (README, tool result pipeline): a value with control characters is another value there.
        if (!sanitised) {
          expectSame(
            `server ${validator} output`,
            schema,
            instance,
            want,
            await outputVerdict(call, index, instance),
          )
        }
      }
      const early = (await interim.validateAsync(instance)).ok
      expectSame('interim', schema, instance, want, early)
      if (!early) interim = beforeAjv() // a rejection moved it to ajv: the next value starts over
      const checked = await client.callTool(`t_${index}`, { value: instance }).then(
        (result) => (expect(result.structuredContent).toEqual(instance), true),
        (error: unknown) => (error instanceof InvalidResponseError ? false : String(error)),
      )
      expectSame('client outputSchema', schema, instance, want, checked)
    }
    tally.fields += elicitationFields(schema, instances, expectSame)
  }
  await client.close()
  return found
}

/** The CLI checks each elicitation field (a primitive schema) on its own, as a peer's untrusted schema. */
function elicitationFields(
  schema: Schema,
  instances: readonly Schema[],
  expectSame: (path: string, schema: Schema, value: unknown, want: boolean, got: boolean) => void,
): number {
  let pairs = 0
  const properties = (schema.properties ?? {}) as Record<string, Schema>
  for (const [name, field] of Object.entries(properties)) {
    const primitive = ['string', 'number', 'integer', 'boolean'].includes(field.type as string)
    if (!primitive && !Array.isArray(field.enum)) continue
    const judge = reference(field)
    const check = fieldCheck(name, field)
    for (const instance of instances) {
      if (!Object.hasOwn(instance, name)) continue
      pairs++
      expectSame(
        'elicitation field',
        field,
        instance[name],
        judge(instance[name]),
        check(instance[name]) === undefined,
      )
    }
  }
  return pairs
}

describe('every validation path agrees with a reference validator', () => {
  it(
    `on random schemas and instances (seed ${SEED})`,
    { timeout: Math.max(120_000, RUNS * 10_000) },
    async () => {
      const tally: Tally = { schemas: 0, pairs: 0, valid: 0, fields: 0, checks: 0 }
      try {
        await fc.assert(
          fc.asyncProperty(serverArb, async (entries) => {
            const found = await disagreements(entries, tally)
            if (found.length > 0) throw new Error(JSON.stringify(found.slice(0, 3), null, 1))
          }),
          { seed: SEED, numRuns: RUNS },
        )
      } catch (error) {
        throw new Error(`SCHEMA_PROPERTY_SEED=${SEED}: ${(error as Error).message}`, { cause: error })
      }
      console.info(
        `schema differential, seed ${SEED}: ${tally.schemas} schemas in ${RUNS} servers, ${tally.pairs} ` +
          `schema/instance pairs (${tally.valid} valid) and ${tally.fields} elicitation field pairs, ` +
          `${tally.checks} verdicts compared`,
      )
      // Both verdicts are common, or the comparison would prove little. With 12 servers the valid share
      // varies by seed (10–27% in the seeds we tried; 9.96% once), so the floor is 5%, not 10%: a bound the
      // generator meets by a margin, not one it meets on most seeds.
      expect(tally.pairs).toBeGreaterThan(RUNS * 12)
      expect(tally.valid).toBeGreaterThan(tally.pairs * 0.05)
      expect(tally.pairs - tally.valid).toBeGreaterThan(tally.pairs * 0.05)
    },
  )
})
