import type Open from 'open'

/**
 * Opens a URL in the user's browser when there is one and the `open` package is installed; reports whether
 * it tried. The `open` package hands the URL to the opener as one argument on every platform: macOS `open`
 * and `xdg-open` get it in their argv (no shell), and on Windows it is a single-quoted PowerShell string
 * inside an encoded `Start` command. So no character of the URL (`&` is in every authorization URL; `"`,
 * `^`, `%`, spaces) is read by `cmd.exe` or a shell, and nothing can break out of the argument.
 */
export async function openBrowser(url: string): Promise<boolean> {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false
  let open: typeof Open
  try {
    // Loaded only when a browser is wanted: every other command starts without it. `open` is an optional
    // peer dependency (with the ten packages it needs, more than the rest of the install); without it the
    // caller prints the URL to open by hand.
    open = (await import('open')).default
  } catch {
    process.stderr.write('To have toolwire open your browser, install the `open` package: npm install open\n')
    return false
  }
  try {
    const child = await open(url)
    child.on('error', () => {})
    return true
  } catch {
    return false
  }
}
