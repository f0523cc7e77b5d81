// A Cloudflare Worker module: everything at module scope is pure definition (no timer, no I/O).
import { handler } from './app.mjs'

export default { fetch: (request) => handler(request) }
