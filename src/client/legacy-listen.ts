/**
 * `subscribe()` against a 2025-era server, which has no `subscriptions/listen`: list changes arrive as plain
 * notifications (HTTP: on the session's GET stream; stdio: on stdout), and resource updates after
 * `resources/subscribe` (2025-11-25 server/tools §List Changed Notification, server/resources
 * §Subscriptions). The result has the same shape as a 2026-07-28 subscription.
 */
import type { JsonRpcNotification } from '../wire/jsonrpc.js'
import type { SubscriptionFilter } from '../wire/types.js'
import { HttpTransport } from './http.js'
import type { LegacyServer } from './legacy.js'
import type { Session } from './session.js'
import type { SubscribeOptions, Subscription, SubscriptionEnd } from './subscription.js'

/** Registers a listener for notifications that belong to no request; returns its removal. */
export type NotificationTap = (listener: (notification: JsonRpcNotification) => void) => () => void

const LIST_CHANGED: Record<string, keyof SubscriptionFilter> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
}

/** What the server's `initialize` capabilities say it can send of what was asked. */
function grantable(server: LegacyServer, filter: SubscriptionFilter): SubscriptionFilter {
  const { tools, prompts, resources } = server.capabilities
  const granted: SubscriptionFilter = {}
  if (filter.toolsListChanged && tools?.listChanged) granted.toolsListChanged = true
  if (filter.promptsListChanged && prompts?.listChanged) granted.promptsListChanged = true
  if (filter.resourcesListChanged && resources?.listChanged) granted.resourcesListChanged = true
  if (filter.resourceSubscriptions?.length && resources?.subscribe) {
    granted.resourceSubscriptions = [...filter.resourceSubscriptions]
  }
  return granted
}

export async function openLegacySubscription(
  session: Session,
  server: LegacyServer,
  tap: NotificationTap,
  filter: SubscriptionFilter,
  options: SubscribeOptions,
  onEvent: (notification: JsonRpcNotification) => void,
): Promise<Subscription> {
  const granted = grantable(server, filter)
  const uris = new Set(granted.resourceSubscriptions ?? [])
  const deliver = (notification: JsonRpcNotification): void => {
    const flag = LIST_CHANGED[notification.method]
    const uri = notification.params?.uri
    const wanted =
      flag !== undefined
        ? granted[flag] === true
        : notification.method === 'notifications/resources/updated' &&
          typeof uri === 'string' &&
          uris.has(uri)
    if (!wanted) return
    onEvent(notification)
    options.onNotification?.(notification)
  }
  for (const uri of uris) await session.request('resources/subscribe', { uri })

  const controller = new AbortController()
  const stop = (): void => controller.abort('subscription closed')
  let resolveEnded!: (end: SubscriptionEnd) => void
  const ended = new Promise<SubscriptionEnd>((resolve) => (resolveEnded = resolve))
  const transport = session.transport
  // Over HTTP only the session's GET stream carries them; without one (405, no session) nothing can arrive.
  const open = transport instanceof HttpTransport ? await transport.listenToSession() : true
  const acknowledged = open ? granted : {}
  const untap = tap(deliver)
  controller.signal.addEventListener('abort', () => {
    untap()
    resolveEnded({ reason: 'closed' })
  })
  if (options.signal?.aborted) stop()
  else options.signal?.addEventListener('abort', stop, { once: true })
  return {
    acknowledged,
    ended,
    close: async () => {
      stop()
      options.signal?.removeEventListener('abort', stop)
      for (const uri of uris) await session.request('resources/unsubscribe', { uri }).catch(() => undefined)
      await ended
    },
  }
}
