export { loadConsoleAssets, CONSOLE_DIR, type ConsoleAsset } from './console-assets.js'
export { consoleRoutes } from './console-routes.js'
