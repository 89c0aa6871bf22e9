import { TrieRouter } from 'hono/router/trie-router'

// Hono answers HEAD with the GET route; OPTIONS has no routes of its own.
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/**
 * The methods some route answers at a path, for a 405 naming them. Middleware (method ALL) and
 * catch-alls (the console's `GET *`, which falls through to the 404 for paths it doesn't serve)
 * allow nothing. The routes are read at the first call, when every route is registered.
 */
export function allowedMethods(routes: () => ReadonlyArray<{ method: string; path: string }>): (path: string) => string[] {
  let router: TrieRouter<true> | undefined
  return (path) => {
    if (!router) {
      router = new TrieRouter<true>()
      for (const route of routes()) {
        if ((METHODS as readonly string[]).includes(route.method) && route.path !== '/*') router.add(route.method, route.path, true)
      }
    }
    const allowed: string[] = METHODS.filter((method) => router!.match(method, path)[0].length > 0)
    return allowed.includes('GET') ? [...allowed.slice(0, 1), 'HEAD', ...allowed.slice(1)] : allowed
  }
}
