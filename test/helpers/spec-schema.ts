/**
 * Validates every message a server sends against the zod schemas of the official SDK
 * (`@modelcontextprotocol/core`), plus the 2026-07-28 result fields those schemas leave open
 * (schema reference §Result `resultType`, §CacheableResult `ttlMs`/`cacheScope`, §InputRequiredResult).
 */
import {
  CallToolResultSchema,
  CompleteResultSchema,
  CreateMessageRequestSchema,
  DiscoverResultSchema,
  ElicitRequestFormParamsSchema,
  ElicitRequestSchema,
  ElicitRequestURLParamsSchema,
  GetPromptResultSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCResultResponseSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListRootsRequestSchema,
  ListToolsResultSchema,
  ReadResourceResultSchema,
  ResultSchema,
  ServerNotificationSchema,
  SubscriptionsListenResultSchema,
} from '@modelcontextprotocol/core'
import { z } from 'zod'

/** A finished 2026-07-28 result says so (the SDK's result schemas accept the field without checking it). */
const resultType = z.object({ resultType: z.literal('complete') })
/** Results a client may cache must say for how long and for whom. */
const cacheable = resultType.extend({
  ttlMs: z.number().int().min(0),
  cacheScope: z.enum(['public', 'private']),
})

/**
 * 2026-07-28 removed `elicitationId` from URL-mode elicitation (changelog, item 11); the SDK's schema still
 * requires it, so URL mode is checked without it.
 */
const elicitRequest = ElicitRequestSchema.extend({
  params: z.union([
    ElicitRequestFormParamsSchema,
    ElicitRequestURLParamsSchema.omit({ elicitationId: true }),
  ]),
})

/** `input_required`: requests the client must fulfil (sampling, roots, elicitation) and/or state to echo. */
const inputRequired = z
  .looseObject({
    resultType: z.literal('input_required'),
    inputRequests: z
      .record(z.string(), z.union([CreateMessageRequestSchema, ListRootsRequestSchema, elicitRequest]))
      .optional(),
    requestState: z.string().optional(),
    _meta: ResultSchema.shape._meta,
  })
  .refine((r) => r.inputRequests !== undefined || r.requestState !== undefined, {
    message: 'needs inputRequests or requestState',
  })

type Check = z.ZodType
/** The successful result of each method: the SDK's schema and the 2026-07-28 envelope fields. */
const RESULT: Record<string, readonly Check[]> = {
  'server/discover': [DiscoverResultSchema, cacheable],
  'tools/list': [ListToolsResultSchema, cacheable],
  'tools/call': [CallToolResultSchema, resultType],
  'prompts/list': [ListPromptsResultSchema, cacheable],
  'prompts/get': [GetPromptResultSchema, resultType],
  'resources/list': [ListResourcesResultSchema, cacheable],
  'resources/read': [ReadResourceResultSchema, cacheable],
  'resources/templates/list': [ListResourceTemplatesResultSchema, cacheable],
  'completion/complete': [CompleteResultSchema, resultType],
  'subscriptions/listen': [SubscriptionsListenResultSchema, resultType],
}

const INPUT_REQUIRED = new Set(['tools/call', 'prompts/get', 'resources/read'])

function problemsOf(schema: Check, value: unknown): string[] {
  const parsed = schema.safeParse(value)
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `/${issue.path.map(String).join('/')} ${issue.message}`)
}

function resultProblems(result: unknown, method: string | undefined): string[] {
  const record = (result ?? {}) as Record<string, unknown>
  // Without the method (a tap on a stdio pipe), any result may be the input_required kind.
  if (record.resultType === 'input_required' && (method === undefined || INPUT_REQUIRED.has(method))) {
    return problemsOf(inputRequired, result)
  }
  const checks = (method !== undefined ? RESULT[method] : undefined) ?? [ResultSchema, resultType]
  return checks.flatMap((check) => problemsOf(check, result))
}

/**
 * Throws unless `message` is a valid server message: a response to `method` (result or error) or a
 * server notification.
 */
export function assertServerMessage(message: unknown, method?: string): void {
  const m = message as Record<string, unknown>
  let problems: string[]
  if ('method' in m) {
    problems = [...problemsOf(JSONRPCNotificationSchema, m), ...problemsOf(ServerNotificationSchema, m)]
  } else if ('error' in m) {
    problems = problemsOf(JSONRPCErrorResponseSchema, m)
  } else {
    problems = [...problemsOf(JSONRPCResultResponseSchema, m), ...resultProblems(m.result, method)]
  }
  if (problems.length > 0) {
    throw new Error(
      `server message breaks the MCP schema:\n${problems.join('\n')}\n${JSON.stringify(message)}`,
    )
  }
}
