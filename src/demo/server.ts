/** The demo server `npm start` serves. */
import { defineServer, type HandleStore, type Server } from '../index.js'
import { basketTools } from './basket.js'
import { demoTools } from './tools.js'

export interface DemoOptions {
  /** Where baskets live (default: in memory). */
  readonly store?: HandleStore
}

export function createDemoServer(options: DemoOptions = {}): Server {
  return defineServer({
    name: 'toolwire-demo',
    title: 'toolwire demo',
    version: '0.1.0',
    instructions:
      'Small utility tools: arithmetic, unit conversion, text statistics, time zones, a countdown, and a shopping basket kept between calls by a handle.',
    tools: [...demoTools, ...basketTools(options.store)],
  })
}
