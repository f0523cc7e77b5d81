/**
 * A stdio server's whole process tree, not just the process we spawned. Servers are often started through a
 * wrapper (`npx`, `uvx`, a shell without `exec`): the real server is a grandchild, and ending only the
 * wrapper leaves it running, holding the pipes the client waits on. So the server starts as the leader of
 * its own process group (POSIX) and the whole group is signalled; on Windows `taskkill /T` ends the tree.
 * stdio §Shutdown asks the client to close stdin, then SIGTERM, then SIGKILL: here each step reaches every
 * process of the group. A group still alive when this process exits (an error path, `process.exit`, a fatal
 * signal) is killed from an exit hook, so no server outlives its client.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { onExit } from 'signal-exit'

const windows = process.platform === 'win32'

/** Spawn option: a new process group (and session) on POSIX, so the group can be signalled as one. */
export const OWN_GROUP = !windows

/** Live groups, killed when this process exits without having closed them. */
const live = new Set<ProcessGroup>()
let hooked = false

function killLiveGroups(): void {
  for (const group of live) group.killNow()
}

export class ProcessGroup {
  readonly #child: ChildProcess
  #gone = false

  constructor(child: ChildProcess) {
    this.#child = child
    if (child.pid === undefined) {
      this.#gone = true
      return
    }
    live.add(this)
    if (!hooked) {
      hooked = true
      // signal-exit also runs it when a signal nobody else handles ends this process (Ctrl-C in an
      // application without a SIGINT handler): the server, in a group of its own, gets no terminal signal.
      onExit(killLiveGroups)
    }
  }

  /** True while some process of the group (or, on Windows, the spawned process) is running. */
  alive(): boolean {
    const pid = this.#child.pid
    if (this.#gone || pid === undefined) return false
    if (windows) return this.#child.exitCode === null && this.#child.signalCode === null
    try {
      process.kill(-pid, 0)
      return true
    } catch (error) {
      // EPERM: a member exists but is not ours to signal (setuid); it still counts as alive.
      if ((error as NodeJS.ErrnoException).code === 'EPERM') return true
      this.#forget()
      return false
    }
  }

  /** Sends `signal` to every process of the group; on Windows any signal ends the tree (taskkill /T /F). */
  signal(signal: 'SIGTERM' | 'SIGKILL'): void {
    const pid = this.#child.pid
    if (!this.alive() || pid === undefined) return
    if (windows) {
      const killer = spawn('taskkill', ['/T', '/F', '/PID', String(pid)], { stdio: 'ignore' })
      killer.on('error', () => undefined)
      return
    }
    try {
      process.kill(-pid, signal)
    } catch {
      // gone in the meantime
    }
  }

  /** Synchronous SIGKILL of the whole group, for the exit hook (nothing asynchronous runs there). */
  killNow(): void {
    const pid = this.#child.pid
    if (!this.alive() || pid === undefined) return
    if (windows) spawnSync('taskkill', ['/T', '/F', '/PID', String(pid)], { stdio: 'ignore' })
    else this.signal('SIGKILL')
    this.#forget()
  }

  /**
   * Resolves true once no process of the group remains, false after `ms`. A group has no exit event, so
   * membership is checked every 25 ms.
   */
  async ended(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms
    while (this.alive()) {
      if (Date.now() >= deadline) return false
      // Not unref'd: the wait keeps this process alive, so the group gets its grace before the exit hook.
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    return true
  }

  #forget(): void {
    this.#gone = true
    live.delete(this)
  }
}
