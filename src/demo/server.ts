/** The demo server `npm start` serves. */
import { defineServer, type Server } from '../index.js'
import { createNotebook } from './notes.js'
import { demoTools } from './tools.js'

export function createDemoServer(): Server {
  const notebook = createNotebook()
  const server = defineServer({
    name: 'toolwire-demo',
    title: 'toolwire demo',
    version: '0.1.0',
    instructions:
      'Small utility tools (arithmetic, unit conversion, text statistics, time zones, a countdown) and a ' +
      'notebook: add_note asks the user to fill in a form, delete_notes asks them to confirm; the notes are ' +
      'resources (notes://all, notes://note/{id}) and summarize_notes is a prompt over them.',
    tools: [...demoTools, ...notebook.tools],
    resources: notebook.resources,
    prompts: notebook.prompts,
    // Set it when several demo instances share a load balancer; otherwise a per-process secret is used.
    requestState: { secret: process.env.TOOLWIRE_STATE_SECRET },
  })
  notebook.attach(server)
  return server
}
