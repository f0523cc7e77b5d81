/** Type-level contract of defineTool: handler arguments are inferred from the input schema (checked by tsc). */
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { defineTool, jsonSchema, type ToolContext } from '../src/index.js'

describe('defineTool types', () => {
  it('infers arguments from zod, from jsonSchema<T>, and falls back to a record for plain JSON Schema', () => {
    defineTool({
      name: 'zod',
      inputSchema: z.object({ a: z.number(), tags: z.array(z.string()).optional() }),
      handler: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number; tags?: string[] | undefined }>()
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>()
        return String(args.a)
      },
    })
    defineTool({
      name: 'typed',
      inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string }>()
        return args.city
      },
    })
    defineTool({
      name: 'plain',
      inputSchema: { type: 'object' },
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>()
        return ''
      },
    })
  })

  it('types the return value by the output schema', () => {
    defineTool({
      name: 'out',
      outputSchema: z.object({ sum: z.number() }),
      handler: () => ({ sum: 1 }),
    })
    defineTool({
      name: 'bad_out',
      outputSchema: z.object({ sum: z.number() }),
      // @ts-expect-error a string is not the declared structured output
      handler: () => 'not structured',
    })
  })
})
