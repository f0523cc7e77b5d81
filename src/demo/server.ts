/** The demo server `npm start` serves. */
import { defineServer, type Server } from '../index.js'
import { demoTools } from './tools.js'

export function createDemoServer(): Server {
  return defineServer({
    name: 'toolwire-demo',
    title: 'toolwire demo',
    version: '0.1.0',
    instructions:
      'Small utility tools: arithmetic, unit conversion, text statistics, time zones, a countdown.',
    tools: demoTools,
  })
}
