/** The inspector page: state from the CLI's local API, kept live by its event stream. */
import { html } from 'htm/preact'
import { render, type VNode } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { api, errorOf, events, isObject, type InspectorEvent, type JsonObject } from './api.js'
import { Prompts, Resources } from './catalog.js'
import { PendingInputs, type PendingInput } from './inputs.js'
import { Markdown } from './markdown.js'
import { shown } from './names.js'
import { History, Messages, type LoggedMessage } from './messages.js'
import { JsonTree, type CallOutcome } from './result-view.js'
import {
  ToolDetail,
  ToolList,
  type HistoryEntry,
  type Running,
  type ServerSearch,
  type Tool,
} from './tools.js'

const TABS = ['Tools', 'Resources', 'Prompts', 'Messages', 'History', 'Server'] as const
type Tab = (typeof TABS)[number]
/** Messages the page keeps; the CLI keeps its own bounded log. */
const MAX_MESSAGES = 2_000
const str = (value: unknown): string => (typeof value === 'string' ? value : '')

function Connect(): VNode {
  const [target, setTarget] = useState('')
  const [error, setError] = useState<string | undefined>(undefined)
  return html`<form
    class="connect"
    onSubmit=${(e: Event) => {
      e.preventDefault()
      void api('connect', { target }).then((answer) => setError(errorOf(answer)))
    }}
  >
    <div class="field">
      <label for="target">Server URL or configured name</label>
      <input
        id="target"
        value=${target}
        onInput=${(e: Event) => setTarget((e.target as HTMLInputElement).value)}
      />
    </div>
    <button type="submit" class="primary">Connect</button>
    ${error ? html`<div class="error" role="alert">${error}</div>` : ''}
  </form>`
}

function ServerTab({ state, onRoots }: { state: JsonObject; onRoots: (uris: string[]) => void }): VNode {
  const roots = Array.isArray(state.roots) ? state.roots.filter(isObject).map((r) => str(r.uri)) : []
  const [text, setText] = useState(roots.join('\n'))
  return html`<div class="server-tab">
    <h2>Server</h2>
    <dl>
      <dt>Target</dt>
      <dd>${str(state.target)}</dd>
      <dt>Era</dt>
      <dd>${str(state.era)} (protocol ${str(state.protocolVersion)}, over ${str(state.transport)})</dd>
      <dt>Versions</dt>
      <dd>${Array.isArray(state.supportedVersions) ? state.supportedVersions.join(', ') : ''}</dd>
    </dl>
    <h3>Capabilities</h3>
    <${JsonTree} value=${state.capabilities} />
    ${
      state.instructions
        ? html`<h3>Instructions</h3>
            <${Markdown} text=${str(state.instructions)} />`
        : ''
    }
    <h3>Roots</h3>
    <form
      onSubmit=${(e: Event) => (
        e.preventDefault(),
        onRoots(
          text
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean),
        )
      )}
    >
      <div class="field">
        <label for="roots">Roots (one URI a line)</label>
        <textarea
          id="roots"
          rows="3"
          onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}
        >
${text}</textarea>
      </div>
      <button type="submit">Set roots</button>
    </form>
  </div>`
}

function App(): VNode {
  const [state, setState] = useState<JsonObject>({})
  const [lists, setLists] = useState<JsonObject>({})
  const [tab, setTab] = useState<Tab>('Tools')
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [running, setRunning] = useState<Record<string, Running>>({})
  const [outcomes, setOutcomes] = useState<Record<string, CallOutcome>>({})
  const [history, setHistory] = useState<HistoryEntry[]>([])
  const [loadArgs, setLoadArgs] = useState<{ tool: string; args: JsonObject; n: number } | undefined>(
    undefined,
  )
  const [inputs, setInputs] = useState<PendingInput[]>([])
  const [messages, setMessages] = useState<LoggedMessage[]>([])
  const [contents, setContents] = useState<unknown>(undefined)
  const [notices, setNotices] = useState<string[]>([])
  const [theme, setTheme] = useState(
    () =>
      localStorage.getItem('toolwire-theme') ??
      (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'),
  )
  const [found, setFound] = useState<ServerSearch | undefined>(undefined)
  /** The words of the latest search sent: an older answer arriving late is dropped. */
  const latestSearch = useRef('')
  const callIds = useRef<Record<string, string>>({})
  /** A notice once, however often a server repeats it (some announce list changes in bursts). */
  const notice = useCallback(
    (text: string) => setNotices((old) => (old.includes(text) ? old : [...old.slice(-4), text])),
    [],
  )

  const refresh = useCallback(async () => {
    const next = await api('state')
    setState(next)
    // A server that went away (a dev reload that failed) lists nothing rather than what it once had.
    setLists(next.connected === true ? await api('lists') : {})
  }, [])

  useEffect(() => {
    document.documentElement.dataset.theme = theme
    localStorage.setItem('toolwire-theme', theme)
  }, [theme])

  useEffect(() => {
    void refresh()
    void api<LoggedMessage[]>('log').then((entries) => setMessages([...entries]))
    void api<PendingInput[]>('pending').then(setInputs)
    let timer: ReturnType<typeof setTimeout> | undefined
    return events((event: InspectorEvent) => {
      if (event.type === 'message')
        setMessages((old) => [...old, event.entry as LoggedMessage].slice(-MAX_MESSAGES))
      else if (
        event.type === 'changed' ||
        event.type === 'connected' ||
        event.type === 'problem' ||
        event.type === 'reloaded'
      ) {
        if (timer) clearTimeout(timer)
        timer = setTimeout(() => void refresh(), 50)
        if (event.type === 'changed')
          notice(`The server's ${str(event.list)} changed; the list was refreshed.`)
      } else if (event.type === 'input') setInputs((old) => [...old, event.input as PendingInput])
      else if (event.type === 'input-done') setInputs((old) => old.filter((input) => input.id !== event.id))
      else if (event.type === 'progress' || event.type === 'task' || event.type === 'log') {
        const tool = callIds.current[str(event.callId)]
        if (!tool) return
        setRunning((old) => {
          const current = old[tool] ?? { logs: [] }
          const next: Running =
            event.type === 'progress'
              ? { ...current, progress: event.progress as Running['progress'] & object }
              : event.type === 'task'
                ? { ...current, task: event.task as JsonObject }
                : { ...current, logs: [...current.logs, event.params].slice(-200) }
          return { ...old, [tool]: next }
        })
      } else if (event.type === 'warning') notice(str(event.message))
    })
  }, [refresh, notice])

  const tools = (Array.isArray(lists.tools) ? lists.tools : []).filter(
    (t): t is Tool => isObject(t) && typeof t.name === 'string',
  )
  const offersSearch = tools.some((t) => t.name === 'search_tools')
  const serverSearch = useCallback((query: string) => {
    latestSearch.current = query
    void api('search', { query }).then((answer) => {
      if (latestSearch.current !== query) return
      const error = errorOf(answer)
      const tools = (Array.isArray(answer.tools) ? answer.tools : []).filter(
        (t): t is Tool => isObject(t) && typeof t.name === 'string',
      )
      setFound(error === undefined ? { query, tools } : { query, error })
    })
  }, [])
  // A tool found by search is shown and called as a listed one (the CLI's client remembers its definition).
  const tool = tools.find((t) => t.name === selected) ?? found?.tools?.find((t) => t.name === selected)
  const read = (uri: string): void => {
    setTab('Resources')
    void api('read', { uri }).then(setContents)
  }
  const context = { read }

  const onCall = async (name: string, args: JsonObject): Promise<void> => {
    const callId = crypto.randomUUID()
    callIds.current[callId] = name
    setRunning((old) => ({ ...old, [name]: { logs: [] } }))
    setOutcomes((old) => {
      const copy = { ...old }
      delete copy[name]
      return copy
    })
    const outcome = await api<CallOutcome>('call', { callId, tool: name, args })
    delete callIds.current[callId]
    setRunning((old) => {
      const copy = { ...old }
      delete copy[name]
      return copy
    })
    setOutcomes((old) => ({ ...old, [name]: { ...outcome, callId, args } }))
    setHistory((old) => [{ tool: name, args, outcome, at: new Date().toISOString() }, ...old].slice(0, 100))
  }
  const onCancel = (name: string): void => {
    const callId = Object.entries(callIds.current).find(([, tool]) => tool === name)?.[0]
    if (callId) void api('cancel', { callId })
  }

  const info = isObject(state.info) ? state.info : {}
  return html`<div class="app">
    <header>
      <h1>toolwire inspector</h1>
      <span class="server-name">${shown(str(info.title) || str(info.name))} ${shown(str(info.version))}</span>
      ${state.era ? html`<span class="badge">${state.era === '2025' ? `2025 era (${str(state.protocolVersion)})` : str(state.era)}</span>` : ''}
      <button type="button" class="theme" onClick=${() => setTheme(theme === 'dark' ? 'light' : 'dark')}>
        ${theme === 'dark' ? 'Light theme' : 'Dark theme'}
      </button>
    </header>
    ${state.problem ? html`<pre class="error problem" role="alert" aria-label="Server problem">${str(state.problem)}</pre>` : ''}
    ${
      notices.length
        ? html`<div class="notices" role="status">
            ${notices.map((n) => html`<div>${n}</div>`)}
            <button type="button" class="small" onClick=${() => setNotices([])}>Dismiss</button>
          </div>`
        : ''
    }
    <${PendingInputs} inputs=${inputs} />
    ${state.connected === false && !state.problem ? html`<${Connect} />` : ''}
    <div class="tabs" role="tablist" aria-label="Sections">
      ${TABS.map(
        (name) =>
          html`<button
            type="button"
            role="tab"
            aria-selected=${tab === name}
            class=${tab === name ? 'tab active' : 'tab'}
            onClick=${() => setTab(name)}
          >
            ${name}${name === 'Messages' ? ` (${messages.length})` : ''}
          </button>`,
      )}
    </div>
    <main>
      ${
        tab === 'Tools'
          ? html`<div class="split">
              <${ToolList}
                tools=${tools}
                selected=${selected}
                onSelect=${setSelected}
                onServerSearch=${offersSearch ? serverSearch : undefined}
                found=${found}
              />
              ${errorOf(lists.tools) ? html`<p class="error">${errorOf(lists.tools)}</p>` : ''}
              ${
                tool
                  ? html`<${ToolDetail}
                      key=${`${tool.name}-${loadArgs?.tool === tool.name ? loadArgs.n : 0}`}
                      tool=${tool}
                      running=${running[tool.name]}
                      target=${state.target ?? null}
                      stdio=${state.transport === 'stdio'}
                      initialArgs=${loadArgs?.tool === tool.name ? loadArgs.args : undefined}
                      onCall=${onCall}
                      onCancel=${() => onCancel(tool.name)}
                      outcome=${outcomes[tool.name]}
                      context=${context}
                    />`
                  : html`<p class="hint">Choose a tool.</p>`
              }
            </div>`
          : ''
      }
      ${tab === 'Resources' ? html`<${Resources} resources=${lists.resources} templates=${lists.templates} context=${context} read=${read} contents=${contents} />` : ''}
      ${tab === 'Prompts' ? html`<${Prompts} prompts=${lists.prompts} context=${context} />` : ''}
      ${tab === 'Messages' ? html`<${Messages} entries=${messages} />` : ''}
      ${
        tab === 'History'
          ? html`<${History}
              entries=${history}
              onLoad=${(entry: HistoryEntry) => {
                setLoadArgs({ tool: entry.tool, args: entry.args, n: Date.now() })
                setSelected(entry.tool)
                setTab('Tools')
              }}
            />`
          : ''
      }
      ${tab === 'Server' ? html`<${ServerTab} state=${state} onRoots=${(uris: string[]) => void api('roots', { uris }).then(refresh)} />` : ''}
    </main>
  </div>`
}

const root = document.getElementById('app')
if (root) render(html`<${App} />`, root)
