/**
 * `subscriptions/listen` (SUB-*): resolves once the server acknowledged, delivers the stream's
 * notifications, ends on close() (HTTP: the stream is closed; stdio: `notifications/cancelled`), on the
 * server's graceful end, or on a disconnect.
 */
import { isRecord, type JsonRpcNotification } from '../wire/jsonrpc.js'
import type { SubscriptionFilter, Tool } from '../wire/types.js'
import { protocolError, RequestTimeoutError, TransportError } from './errors.js'
import type { Session } from './session.js'

export type SubscriptionEnd =
  | { readonly reason: 'closed' }
  | { readonly reason: 'server-ended' }
  | { readonly reason: 'error'; readonly error: Error }

export interface Subscription {
  /** What the server agreed to send (may be less than asked for, patterns/subscriptions §Acknowledgment). */
  readonly acknowledged: SubscriptionFilter
  /** Resolves when the subscription is over, saying why. */
  readonly ended: Promise<SubscriptionEnd>
  /** Cancels the subscription and waits until it is over. */
  close(): Promise<void>
}

export interface SubscribeOptions {
  /** Every notification of the stream except the acknowledgement. */
  readonly onNotification?: (notification: JsonRpcNotification) => void
  /**
   * Called with the fresh tool list after a `tools/list_changed`: changes arriving within `refreshDebounceMs`
   * of each other cause one refetch, not one per notification.
   */
  readonly onToolsChanged?: (tools: Tool[]) => void
  /** Quiet time before the refetch for `onToolsChanged` (default 100 ms). */
  readonly refreshDebounceMs?: number
  /** How long to wait for the acknowledgement (default: the client's timeout). */
  readonly ackTimeoutMs?: number
  readonly signal?: AbortSignal
}

export function openSubscription(
  session: Session,
  filter: SubscriptionFilter,
  options: SubscribeOptions,
  onEvent: (notification: JsonRpcNotification) => void,
): Promise<Subscription> {
  const controller = new AbortController()
  const stop = (): void => controller.abort('subscription closed')
  if (options.signal?.aborted) stop()
  else options.signal?.addEventListener('abort', stop, { once: true })

  return new Promise<Subscription>((resolveAck, rejectAck) => {
    let acknowledged = false
    const ackMs = options.ackTimeoutMs ?? session.options.timeoutMs
    const ackTimer = setTimeout(() => {
      if (acknowledged) return
      rejectAck(new RequestTimeoutError(ackMs))
      stop()
    }, ackMs)
    let resolveEnded!: (end: SubscriptionEnd) => void
    const ended = new Promise<SubscriptionEnd>((resolve) => (resolveEnded = resolve))
    const onNotification = (notification: JsonRpcNotification): void => {
      if (notification.method === 'notifications/subscriptions/acknowledged') {
        if (acknowledged) return
        acknowledged = true
        clearTimeout(ackTimer)
        const granted = isRecord(notification.params?.notifications) ? notification.params.notifications : {}
        resolveAck({
          acknowledged: granted as SubscriptionFilter,
          ended,
          close: async () => {
            stop()
            await ended
          },
        })
        return
      }
      onEvent(notification)
      options.onNotification?.(notification)
    }
    session
      .send(
        'subscriptions/listen',
        { notifications: filter },
        { signal: controller.signal, timeoutMs: 0, onNotification },
      )
      .then((response) => {
        if ('error' in response) {
          const error = protocolError(response.error.code, response.error.message, response.error.data)
          resolveEnded({ reason: 'error', error })
          rejectAck(error)
        } else {
          resolveEnded({ reason: 'server-ended' })
          rejectAck(new TransportError('The server ended the subscription before acknowledging it'))
        }
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) resolveEnded({ reason: 'closed' })
        else
          resolveEnded({ reason: 'error', error: error instanceof Error ? error : new Error(String(error)) })
        rejectAck(error)
      })
      .finally(() => {
        clearTimeout(ackTimer)
        options.signal?.removeEventListener('abort', stop)
      })
  })
}
