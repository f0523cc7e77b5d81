/** A stateful demo on state handles: a shopping basket the model creates, fills, reads and checks out. */
import {
  defineHandles,
  defineTool,
  type HandleStore,
  jsonSchema,
  type ToolDefinition,
  ToolError,
} from '../index.js'

interface Line {
  item: string
  quantity: number
}
interface Basket {
  lines: Line[]
}

const MAX_LINES = 50

/** The basket tools; pass a durable store to keep baskets across restarts. */
export function basketTools(store?: HandleStore): ToolDefinition[] {
  const baskets = defineHandles<Basket>({
    kind: 'basket',
    createTool: 'basket_create',
    ttlMs: 30 * 60_000,
    ...(store && { store }),
  })
  const basketId = { type: 'string', description: 'The basket handle basket_create returned' } as const
  const summary = (id: string, basket: Basket): { basket_id: string; lines: Line[]; items: number } => ({
    basket_id: id,
    lines: basket.lines,
    items: basket.lines.reduce((sum, line) => sum + line.quantity, 0),
  })
  const output = jsonSchema<{ basket_id: string; lines: Line[]; items: number }>({
    type: 'object',
    properties: {
      basket_id: { type: 'string' },
      lines: {
        type: 'array',
        items: {
          type: 'object',
          properties: { item: { type: 'string' }, quantity: { type: 'integer' } },
          required: ['item', 'quantity'],
        },
      },
      items: { type: 'integer' },
    },
    required: ['basket_id', 'lines', 'items'],
  })

  const create = defineTool({
    name: 'basket_create',
    title: 'Create basket',
    description: baskets.describe('Creates an empty shopping basket.'),
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    outputSchema: output,
    handler: async (_args, ctx) => {
      const id = await baskets.create(ctx, { lines: [] })
      return summary(id, { lines: [] })
    },
  })

  const add = defineTool({
    name: 'basket_add',
    title: 'Add to basket',
    description: 'Adds a quantity of an item to a basket (quantities of the same item add up).',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    inputSchema: jsonSchema<{ basket_id: string; item: string; quantity?: number }>({
      type: 'object',
      properties: {
        basket_id: basketId,
        item: { type: 'string', minLength: 1, maxLength: 100, description: 'What to add' },
        quantity: { type: 'integer', minimum: 1, maximum: 1000, default: 1 },
      },
      required: ['basket_id', 'item'],
      additionalProperties: false,
    }),
    outputSchema: output,
    handler: async ({ basket_id, item, quantity }, ctx) => {
      const basket = await baskets.update(ctx, basket_id, (current) => {
        const line = current.lines.find((existing) => existing.item === item)
        if (line) line.quantity += quantity ?? 1
        else if (current.lines.length >= MAX_LINES)
          throw new ToolError(`A basket holds at most ${MAX_LINES} different items.`)
        else current.lines.push({ item, quantity: quantity ?? 1 })
        return current
      })
      return summary(basket_id, basket)
    },
  })

  const view = defineTool({
    name: 'basket_view',
    title: 'View basket',
    description: 'Shows what a basket holds.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    inputSchema: jsonSchema<{ basket_id: string }>({
      type: 'object',
      properties: { basket_id: basketId },
      required: ['basket_id'],
      additionalProperties: false,
    }),
    outputSchema: output,
    handler: async ({ basket_id }, ctx) => summary(basket_id, await baskets.get(ctx, basket_id)),
  })

  const checkout = defineTool({
    name: 'basket_checkout',
    title: 'Check out basket',
    description: 'Checks a basket out: returns the order and ends the basket handle.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    inputSchema: jsonSchema<{ basket_id: string }>({
      type: 'object',
      properties: { basket_id: basketId },
      required: ['basket_id'],
      additionalProperties: false,
    }),
    handler: async ({ basket_id }, ctx) => {
      const basket = await baskets.get(ctx, basket_id)
      if (basket.lines.length === 0)
        throw new ToolError('The basket is empty; add items with basket_add first.')
      await baskets.delete(ctx, basket_id)
      const lines = basket.lines.map((line) => `${line.quantity} × ${line.item}`).join('\n')
      return `Order placed:\n${lines}`
    },
  })

  return [create, add, view, checkout]
}
