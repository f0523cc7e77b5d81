/**
 * `toolwire login <url>` and `toolwire logout <url>`. Login authorizes in the browser (or prints the URL when
 * there is none) with a loopback redirect listener, or with `--client-credentials` uses the client
 * credentials grant (TOOLWIRE_CLIENT_ID / TOOLWIRE_CLIENT_SECRET). Tokens land in the credentials file.
 */
import type { Command } from 'commander'
import { AuthorizationError, connect, OAuthProvider } from '../../client/index.js'
import { openBrowser } from '../auth/browser.js'
import { FileTokenStore } from '../auth/file-store.js'
import { listenForCallback } from '../auth/loopback.js'
import { clientCredentialsFromEnv } from '../auth/options.js'
import { UsageError } from '../client/target.js'
import { forTerminal } from '../terminal-text.js'

interface LoginFlags {
  clientCredentials?: boolean
  browser?: boolean
  clientMetadataUrl?: string
}

const say = (line: string): void => void process.stderr.write(`${line}\n`)

function serverUrl(url: string | undefined): string {
  if (!url || !/^https?:\/\//i.test(url))
    throw new UsageError('give the server URL, e.g. https://example.com/mcp')
  return url
}

async function login(url: string, flags: LoginFlags): Promise<void> {
  const store = new FileTokenStore()
  if (flags.clientCredentials) {
    const credentials = clientCredentialsFromEnv()
    if (!credentials)
      throw new UsageError('--client-credentials needs TOOLWIRE_CLIENT_ID (and TOOLWIRE_CLIENT_SECRET)')
    await signIn(new OAuthProvider(url, { store, clientCredentials: credentials }), url)
    return
  }
  const listener = await listenForCallback()
  try {
    const provider = new OAuthProvider(url, {
      store,
      redirectUri: listener.redirectUri,
      clientName: 'toolwire CLI',
      ...(flags.clientMetadataUrl ? { clientMetadataUrl: flags.clientMetadataUrl } : {}),
      authorize: async (authorizationUrl, signal) => {
        // Expect the response before anyone can see the URL; only this request's `state` ends the wait.
        const state = authorizationUrl.searchParams.get('state')
        if (!state) throw new Error('the authorization URL has no state')
        const arrived = listener.callback(state, signal)
        arrived.catch(() => undefined) // handled below; not "unhandled" while the browser opens
        const opened = flags.browser !== false && (await openBrowser(authorizationUrl.href))
        say(opened ? 'Opened your browser to authorize. If it did not open, visit:' : 'To authorize, open:')
        say(`  ${authorizationUrl.href}`)
        return arrived
      },
    })
    await signIn(provider, url)
  } finally {
    await listener.close()
  }
}

/** Makes one request so the server's own challenge picks the scope; authorizes directly if it asks for none. */
async function signIn(provider: OAuthProvider, url: string): Promise<void> {
  const client = connect({ url }, { auth: provider, clientInfo: { name: 'toolwire-cli', version: '0.1.0' } })
  try {
    await client.listTools()
  } finally {
    await client.close()
  }
  if (!(await provider.store.getTokens(provider.resourceKey))) await provider.authorize()
  const tokens = await provider.store.getTokens(provider.resourceKey)
  say(`Logged in to ${url}${tokens?.scope ? ` (scope: ${forTerminal(tokens.scope)})` : ''}.`)
}

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('authorize with a protected server and store its tokens (0600, in your config folder)')
    .argument('<url>', 'the MCP server URL')
    .option(
      '--client-credentials',
      'use the client credentials grant (TOOLWIRE_CLIENT_ID, TOOLWIRE_CLIENT_SECRET)',
    )
    .option('--no-browser', 'print the authorization URL instead of opening a browser')
    .option(
      '--client-metadata-url <url>',
      "an https URL hosting this client's metadata document (used when the server supports them)",
    )
    .action(async (url: string, flags: LoginFlags) => login(serverUrl(url), flags))

  program
    .command('logout')
    .description("forget a server's stored tokens")
    .argument('<url>', 'the MCP server URL')
    .action(async (url: string) => {
      const provider = new OAuthProvider(serverUrl(url), { store: new FileTokenStore() })
      const had = await provider.store.getTokens(provider.resourceKey)
      await provider.logout()
      say(had ? `Logged out of ${url}.` : `No tokens were stored for ${url}.`)
    })
}

export function loginHint(error: unknown): string | undefined {
  return error instanceof AuthorizationError && error.loginRequired
    ? 'run `toolwire login <url>` first (or set TOOLWIRE_CLIENT_ID for the client credentials grant)'
    : undefined
}
