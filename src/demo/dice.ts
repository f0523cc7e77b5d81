/**
 * The demo's MCP Apps tool: `roll_dice` answers with text for every client, and hosts that render views show
 * its `ui://demo/dice` view, which draws the dice and rolls again by calling the tool through the host. The
 * view is one self-contained HTML document speaking the view protocol by hand (apps §Transport Layer: "you
 * don't need an SDK"), with no external resource, so the restrictive default CSP suffices.
 */
import { defineAppView, defineTool, jsonSchema, type ToolDefinition } from '../index.js'

const VIEW = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Dice</title>
<style>
  :root { color-scheme: light dark; font-family: var(--font-sans, system-ui, sans-serif); }
  body { margin: 0; padding: 12px; }
  .dice { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
  .die { width: 48px; height: 48px; border: 2px solid currentColor; border-radius: 8px;
         display: grid; place-items: center; font-size: 22px; font-weight: 600; }
  button { font: inherit; padding: 4px 12px; }
</style>
</head>
<body>
<div id="status">Waiting for the roll…</div>
<div class="dice" id="dice"></div>
<button id="again" disabled>Roll again</button>
<script>
  let nextId = 1
  const pending = new Map()
  let input = { sides: 6, count: 1 }
  const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*')
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++
      pending.set(id, { resolve, reject })
      send({ id, method, params })
    })
  const reportSize = () =>
    send({ method: 'ui/notifications/size-changed',
           params: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight } })
  function show(result) {
    const rolls = result && result.structuredContent && result.structuredContent.rolls
    if (!Array.isArray(rolls)) {
      document.getElementById('status').textContent = result && result.isError ? 'The roll failed.' : 'No dice.'
      return
    }
    document.getElementById('dice').replaceChildren(...rolls.map((value) => {
      const die = document.createElement('div')
      die.className = 'die'
      die.textContent = String(value)
      return die
    }))
    document.getElementById('status').textContent =
      rolls.length + ' × d' + input.sides + ', total ' + result.structuredContent.total
    document.getElementById('again').disabled = false
  }
  window.addEventListener('message', (event) => {
    const message = event.data
    if (!message || message.jsonrpc !== '2.0') return
    if ('id' in message && !('method' in message)) {
      const waiting = pending.get(message.id)
      pending.delete(message.id)
      if (waiting) message.error ? waiting.reject(message.error) : waiting.resolve(message.result)
      return
    }
    if (message.method === 'ui/notifications/tool-input') {
      input = { ...input, ...message.params.arguments }
      document.getElementById('status').textContent = 'Rolling ' + input.count + ' × d' + input.sides + '…'
    } else if (message.method === 'ui/notifications/tool-result') {
      show(message.params)
    } else if (message.method === 'ui/resource-teardown' || message.method === 'ping') {
      send({ id: message.id, result: {} })
    }
  })
  document.getElementById('again').addEventListener('click', async () => {
    document.getElementById('again').disabled = true
    try {
      show(await request('tools/call', { name: 'roll_dice', arguments: input }))
    } catch (error) {
      document.getElementById('status').textContent = 'The host refused: ' + (error && error.message)
      document.getElementById('again').disabled = false
    }
  })
  new ResizeObserver(reportSize).observe(document.body)
  request('ui/initialize', {
    appInfo: { name: 'toolwire-demo-dice', version: '0.1.0' },
    appCapabilities: {},
    protocolVersion: '2026-01-26',
  }).then(() => send({ method: 'ui/notifications/initialized', params: {} }))
</script>
</body>
</html>
`

const diceView = defineAppView({
  uri: 'ui://demo/dice',
  name: 'dice',
  title: 'Dice',
  description: 'Draws the dice roll_dice rolled; rolls again on click',
  html: VIEW,
  prefersBorder: true,
})

/** Fair rolls from the platform's CSPRNG, without modulo bias. */
function rollDie(sides: number): number {
  const limit = Math.floor(0x1_0000_0000 / sides) * sides
  const word = new Uint32Array(1)
  do crypto.getRandomValues(word)
  while ((word[0] as number) >= limit)
  return ((word[0] as number) % sides) + 1
}

export const rollDice: ToolDefinition = defineTool({
  name: 'roll_dice',
  title: 'Roll dice',
  description: 'Rolls dice (default one six-sided die). Hosts with MCP Apps show the roll in a small view.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: jsonSchema<{ sides?: number; count?: number }>({
    type: 'object',
    properties: {
      sides: { type: 'integer', minimum: 2, maximum: 100, default: 6, description: 'Faces per die' },
      count: { type: 'integer', minimum: 1, maximum: 10, default: 1, description: 'How many dice' },
    },
    additionalProperties: false,
  }),
  outputSchema: jsonSchema<{ rolls: number[]; total: number }>({
    type: 'object',
    properties: { rolls: { type: 'array', items: { type: 'integer' } }, total: { type: 'integer' } },
    required: ['rolls', 'total'],
  }),
  ui: diceView,
  handler: ({ sides = 6, count = 1 }) => {
    const rolls = Array.from({ length: count }, () => rollDie(sides))
    return { rolls, total: rolls.reduce((sum, value) => sum + value, 0) }
  },
})
