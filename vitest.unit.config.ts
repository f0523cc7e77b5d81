/**
 * `npm run test:unit`: the fast subset, for the edit-test loop. These files run in this process's forks only:
 * no child process (no CLI, no runtime, no stdio server), no redis-server or nginx, no browser, no build of
 * `dist/`, no conformance suite, no benchmark server. Under a minute on two idle cores; `npm test` runs
 * everything. A new test file that fits these rules belongs in this list.
 */
import { defineConfig } from 'vitest/config'
import base from './vitest.config.js'

export const UNIT_TESTS = [
  'test/apps-bridge.test.ts',
  'test/apps.test.ts',
  'test/client-listen.test.ts',
  'test/client-node-http.test.ts',
  'test/client-oauth-hostile.test.ts',
  'test/client-oauth-ssrf.test.ts',
  'test/client-tasks.test.ts',
  'test/client-toolwire.test.ts',
  'test/client-trust.test.ts',
  'test/content-annotations.test.ts',
  'test/deadlines.test.ts',
  'test/define-metadata.test.ts',
  'test/define.test.ts',
  'test/demo-notes.test.ts',
  'test/engines.test.ts',
  'test/hot-path.test.ts',
  'test/http-accept.test.ts',
  'test/http-basics.test.ts',
  'test/http-errors.test.ts',
  'test/http-headers.test.ts',
  'test/inspector-bounds.test.ts',
  'test/inspector-view-bounds.test.ts',
  'test/install-footprint.test.ts',
  'test/json-schema-suite.test.ts',
  'test/keep-alive.test.ts',
  'test/legacy-batch.test.ts',
  'test/legacy-header-params.test.ts',
  'test/legacy-http.test.ts',
  'test/listen.test.ts',
  'test/message-schema.test.ts',
  'test/mrtr-properties.test.ts',
  'test/mrtr.test.ts',
  'test/openapi-fastify.test.ts',
  'test/openapi-requests.test.ts',
  'test/pagination.test.ts',
  'test/pattern-validation.test.ts',
  'test/plain-schema.test.ts',
  'test/prompts-resources.test.ts',
  'test/schema-agreement.test.ts',
  'test/schema-interpreted.test.ts',
  'test/schema-suite-fixes.test.ts',
  'test/security/anonymous.test.ts',
  'test/security/auth.test.ts',
  'test/security/connections.test.ts',
  'test/security/hostile-schemas.test.ts',
  'test/security/identity-table.test.ts',
  'test/security/input.test.ts',
  'test/security/legacy-handshake-limits.test.ts',
  'test/security/legacy-initialize.test.ts',
  'test/security/legacy-session-id.test.ts',
  'test/security/legacy-streams.test.ts',
  'test/security/legacy-subscribe.test.ts',
  'test/security/limits.test.ts',
  'test/security/nesting.test.ts',
  'test/security/output-cap.test.ts',
  'test/security/output-pipeline.test.ts',
  'test/security/output.test.ts',
  'test/security/principal.test.ts',
  'test/security/rebinding.test.ts',
  'test/security/redaction-protocol.test.ts',
  'test/security/slow-reader.test.ts',
  'test/security/token-cache.test.ts',
  'test/server-card.test.ts',
  'test/skills.test.ts',
  'test/start-script.test.ts',
  'test/stdio-batching.test.ts',
  'test/tasks-sqlite.test.ts',
  'test/tasks.test.ts',
  'test/telemetry-proxy.test.ts',
  'test/telemetry-sessions.test.ts',
  'test/tools-call.test.ts',
  'test/tools-list.test.ts',
  'test/types.test.ts',
  'test/unit-list.test.ts',
  'test/x-mcp-header-secrets.test.ts',
]

// Spread, not mergeConfig: that would append this list to the base's `include` instead of replacing it.
// `isolate: false`: the files of a worker share one module graph, so toolwire's sources are transformed and loaded
// once per worker instead of once per file (that loading was more than a third of the run). These tests keep no
// state between files, or (warn-once) load a fresh copy where they check per-process state; `npm test` still runs
// every file isolated.
export default defineConfig({ ...base, test: { ...base.test, include: UNIT_TESTS, isolate: false } })
