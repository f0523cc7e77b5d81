/** Naming JIT code in a callgrind output from node's perf map (`npm run bench:instructions -- --profile`). */
import { describe, expect, it } from 'vitest'
import { parseArgs } from '../bench/callgrind.mjs'
import { parsePerfMap, profileDifference, selfInstructions } from '../bench/jit-profile.mjs'

const MAP = [
  '1000 100 JS:*cleanValue file:///x/dist/chunks/core-B0-pZxo3.js:6565:20',
  '3000 20 Builtin:StringIndexOf',
  'not a line',
  '2000 10 JS:~header file:///x/dist/chunks/node-BiVTUWCs.js:483:10',
].join('\n')

// Two functions named by address (one with a recursion suffix), one by name, a call whose inclusive cost
// must not count as its caller's own, and ids reused without their names.
const CALLGRIND = [
  'events: Ir',
  'fn=(1) main',
  '5 100',
  'cfn=(2) 0x0000000000001010',
  'calls=3 0',
  '5 70',
  '+1 4',
  'fn=(2)',
  '1 50',
  '*',
  '-1 20',
  "fn=(3) 0x0000000000002004'2",
  '1 7',
  'fn=(4) 0x0000000000009000',
  '1 3',
  'fn=(1)',
  '6 1',
  'totals: 185',
].join('\n')

describe('the JIT-named profile', () => {
  it('reads a perf map, skipping what is not a range', () => {
    expect(parsePerfMap(MAP).map(([start, end]) => [start, end])).toEqual([
      [0x1000, 0x1100],
      [0x2000, 0x2010],
      [0x3000, 0x3020],
    ])
  })

  it('sums self instructions by function, naming addresses from the map and leaving unknown ones as they are', () => {
    const self = selfInstructions(CALLGRIND, parsePerfMap(MAP))
    expect(Object.fromEntries(self)).toEqual({
      main: 105,
      'JS:*cleanValue file:///x/dist/chunks/core-B0-pZxo3.js:6565:20': 70,
      'JS:~header file:///x/dist/chunks/node-BiVTUWCs.js:483:10': 7,
      '0x0000000000009000': 3,
    })
  })

  it('ranks functions by the difference per unit, with chunk hashes taken out so two builds compare', () => {
    const toolwire = new Map([
      ['JS:*cleanValue file:///x/dist/chunks/core-B0-pZxo3.js:6565:20', 800],
      ['Builtins_StringEqual', 300],
      ['llhttp__internal_execute', 200],
    ])
    const floor = new Map([
      ['Builtins_StringEqual', 200],
      ['llhttp__internal_execute', 200],
      ['JS:*concat node:buffer:577:32', 100],
    ])
    expect(profileDifference(toolwire, floor, 100)).toEqual([
      ['JS:*cleanValue file:///x/dist/chunks/core.js:6565:20', 8, 8, 0],
      ['Builtins_StringEqual', 1, 3, 2],
      ['llhttp__internal_execute', 0, 2, 2],
      ['JS:*concat node:buffer:577:32', -1, 0, 1],
    ])
  })

  it('is asked for with --profile', () => {
    expect(parseArgs(['--profile']).profile).toBe(true)
    expect(parseArgs([]).profile).toBe(false)
    expect(() => parseArgs(['--profile=yes'])).toThrow(/takes no value/)
  })
})
