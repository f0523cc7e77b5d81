/**
 * The public surface is reviewed in diffs: api/<entry>.api.md lists every export of every package entry with
 * its declaration, generated from the built .d.ts files. This test regenerates the reports and fails when
 * one differs from the committed file; `npm run api:update` refreshes them after a deliberate change. It
 * also holds every runtime export of every entry to a doc comment with an `@example`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { API_DIR, missingExamples, readApi, renderEntry } from '../scripts/api-report.js'

const api = readApi()
/** The types an application names most; each is documented with an example like the runtime exports. */
const MAIN_SERVER_TYPES = [
  'ChangeBus',
  'HandleStore',
  'HttpAuthenticator',
  'Middleware',
  'PromptConfig',
  'RateLimitStore',
  'RequestContext',
  'ResourceConfig',
  'ResourceTemplateConfig',
  'SecurityOptions',
  'Server',
  'ServerOptions',
  'TaskStore',
  'ToolConfig',
  'ToolContext',
  'ToolDefinition',
]
const MAIN_CLIENT_TYPES = [
  'Client',
  'ClientOptions',
  'ClientTarget',
  'ClientTransport',
  'InputHandlers',
  'TokenStore',
  'ToolCallOptions',
]
const HINT = 'the public API changed: review the diff, then run `npm run api:update` and commit api/'

describe('API report', () => {
  it.each(api.map((entry) => [entry.specifier, entry] as const))(
    '%s matches its committed report',
    (_specifier, entry) => {
      const file = join(API_DIR, entry.file)
      expect(existsSync(file), `${file} is missing: ${HINT}`).toBe(true)
      expect(renderEntry(entry), HINT).toBe(readFileSync(file, 'utf8'))
    },
  )

  it('has no report for an entry the package no longer has', () => {
    const expected = api.map((entry) => entry.file).sort()
    expect(
      readdirSync(API_DIR)
        .filter((name) => name.endsWith('.api.md'))
        .sort(),
    ).toEqual(expected)
  })

  it('documents every runtime export with a description and an @example', () => {
    expect(missingExamples(api), 'add a doc comment with an @example to these exports').toEqual([])
  })

  it('documents the main types with an @example too', () => {
    const named = (specifier: string, names: readonly string[]): string[] => {
      const entry = api.find((candidate) => candidate.specifier === specifier)
      return names.filter((name) => !entry?.exports.find((exported) => exported.name === name)?.hasExample)
    }
    expect(named('toolwire', MAIN_SERVER_TYPES), 'toolwire').toEqual([])
    expect(named('toolwire/client', MAIN_CLIENT_TYPES), 'toolwire/client').toEqual([])
  })

  it('lists every export with a kind and a declaration', () => {
    for (const entry of api) {
      expect(entry.exports.length, entry.specifier).toBeGreaterThan(0)
      for (const exported of entry.exports) {
        expect(exported.kind, `${entry.specifier} ${exported.name}`).toMatch(/^[a-z +]+$/)
        expect(exported.declaration, `${entry.specifier} ${exported.name}`).toContain(exported.name)
      }
    }
  })
})
