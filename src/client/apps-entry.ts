/**
 * toolwire/apps: the host side of MCP Apps views on a toolwire client. It links an `AppBridge` from
 * `@modelcontextprotocol/ext-apps` (an optional peer dependency, imported here for its types only) to a
 * client; the view itself is found with `client.appFor` (`toolwire/client`). Imports nothing from `node:*`,
 * so it runs in a browser page. Every export is public API.
 */
export { linkAppBridge } from './app-bridge.js'
export type { AppBridgeLink, AppBridgeLinkOptions } from './app-bridge.js'
export {
  APP_VIEW_DEFAULTS,
  appToolVisibility,
  AppViewError,
  viewAllowAttribute,
  viewContentSecurityPolicy,
} from './app-view.js'
export type { AppView, AppViewOptions } from './app-view.js'
export { UI_EXTENSION, UI_MIME_TYPE } from '../wire/apps.js'
