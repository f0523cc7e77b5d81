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

/** The tasks extension's `Task` fields (extensions/tasks §Tasks); timestamps are ISO 8601. */
const task = z.object({
  taskId: z.string().min(1),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  statusMessage: z.string().optional(),
  createdAt: z.iso.datetime(),
  lastUpdatedAt: z.iso.datetime(),
  ttlMs: z.number().int().positive().nullable(),
  pollIntervalMs: z.number().int().positive().optional(),
  _meta: ResultSchema.shape._meta,
})
/** `CreateTaskResult`: flat, and nothing but the task (no result, error, inputRequests or requestState). */
const createTask = task.extend({ resultType: z.literal('task') }).strict()
/** `tasks/get`: the task with its status-specific payload inlined. */
const detailedTask = task
  .extend({
    resultType: z.literal('complete'),
    inputRequests: z
      .record(z.string(), z.union([CreateMessageRequestSchema, ListRootsRequestSchema, elicitRequest]))
      .optional(),
    result: CallToolResultSchema.optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .strict()
  .refine((t) => (t.result !== undefined) === (t.status === 'completed'), 'result exactly when completed')
  .refine((t) => (t.error !== undefined) === (t.status === 'failed'), 'error exactly when failed')
/** `tasks/update` and `tasks/cancel` acknowledge with an empty complete result. */
const ack = z.object({ resultType: z.literal('complete'), _meta: ResultSchema.shape._meta }).strict()

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
  'tasks/get': [detailedTask],
  'tasks/update': [ack],
  'tasks/cancel': [ack],
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
  if (record.resultType === 'task' && (method === undefined || method === 'tools/call')) {
    return problemsOf(createTask, result)
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
