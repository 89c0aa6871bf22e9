import { Hono } from 'hono'
import type { ConsoleAsset } from './console-assets.js'

// The console loads only its own files and talks only to this server; no page may frame it.
const CSP = [
  "default-src 'self'",
  // The invoke form validates against each skill's JSON Schema with ajv, which compiles to functions.
  "script-src 'self' 'unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** The app's own pages (console/src/app.tsx): these load index.html. */
const APP_PAGES = /^\/(?:$|(?:skills|agents|runs|approvals|audit|conversations|health|sources|policies|connections)(?:\/|$))/
/** The server's own paths: an unknown one stays the API's JSON 404, whoever asks. */
const SERVER_PATHS = /^\/(?:api|mcp|auth|oauth|metrics|openapi\.json|\.well-known)(?:[/?.]|$)/

/**
 * The web console: its built files, and `index.html` for the app's own pages, so they load on a
 * reload or a shared link (`/skills/…`, `/audit`).
 */
export function consoleRoutes(assets: Map<string, ConsoleAsset>): Hono {
  const app = new Hono()
  const index = assets.get('/index.html')!
  const send = (asset: ConsoleAsset, acceptEncoding: string | undefined, status = 200) => {
    const gzip = asset.gzip && /\bgzip\b/.test(acceptEncoding ?? '') ? asset.gzip : null
    return new Response(gzip ?? asset.body, {
      status,
      headers: {
        'content-type': asset.type,
        'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        vary: 'accept-encoding',
        ...(gzip && { 'content-encoding': 'gzip' }),
      },
    })
  }
  app.get('*', (c, next) => {
    const path = c.req.path
    const encoding = c.req.header('accept-encoding')
    const asset = assets.get(path)
    if (asset) return send(asset, encoding)
    if (APP_PAGES.test(path)) return send(index, encoding)
    // A person following a wrong link gets the console's own not-found page (with a 404), not the API's JSON.
    if (!SERVER_PATHS.test(path) && /\btext\/html\b/.test(c.req.header('accept') ?? '')) return send(index, encoding, 404)
    return next()
  })
  return app
}
