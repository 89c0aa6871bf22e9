import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../../test-support/databases.js'
import { consoleRoutes, loadConsoleAssets } from './index.js'

describe('the console files', () => {
  it('are the regular files of the build, read once; a missing build is null (the server then shows its landing page)', () => {
    expect(loadConsoleAssets(join(tempDir(), 'not-built'))).toBeNull()
    const dir = tempDir()
    mkdirSync(join(dir, 'assets'))
    writeFileSync(join(dir, 'index.html'), '<div id="root"></div>')
    writeFileSync(join(dir, 'assets/app-1234.js'), 'console.log(1)')
    const outside = join(tempDir(), 'secret.txt')
    writeFileSync(outside, 'not for the web')
    symlinkSync(outside, join(dir, 'assets/link.txt'))
    const assets = loadConsoleAssets(dir)!
    expect([...assets.keys()].sort()).toEqual(['/assets/app-1234.js', '/index.html'])
    expect(assets.get('/assets/app-1234.js')).toMatchObject({ immutable: true })
    expect(assets.get('/index.html')).toMatchObject({ immutable: false })
  })

  it('go gzipped to clients that accept it, and as they are to the rest', async () => {
    const dir = tempDir()
    const text = '<div id="root"></div>' + 'x'.repeat(10_000)
    writeFileSync(join(dir, 'index.html'), text)
    const app = consoleRoutes(loadConsoleAssets(dir)!)
    const zipped = await app.request('/', { headers: { 'accept-encoding': 'gzip, deflate, br' } })
    expect(zipped.headers.get('content-encoding')).toBe('gzip')
    expect(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString()).toBe(text)
    const plain = await app.request('/', { headers: { 'accept-encoding': 'identity' } })
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(await plain.text()).toBe(text)
  })

  it('answer the app pages with index.html, and nothing else outside the build', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'index.html'), '<div id="root"></div>')
    const app = consoleRoutes(loadConsoleAssets(dir)!)
    for (const path of ['/', '/approvals', '/skills/calc.v2', '/skills/a.b/', '/audit/01ARZ3NDEKTSV4RRFFQ69G5FAV', '/runs/x', '/policies', '/connections']) {
      const response = await app.request(path)
      expect(response.status, path).toBe(200)
      expect(await response.text()).toBe('<div id="root"></div>')
    }
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/api/skills',
      '/mcp',
      '/favicon.ico',
      '/index.js',
      '/.well-known/oauth-protected-resource',
      '/skillsx',
      '/admin',
    ]) {
      expect((await app.request(path)).status, path).toBe(404)
    }
  })

  it("answer a browser's unknown page with the app and a 404, so it shows its own not-found page; the server's paths stay the server's", async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'index.html'), '<div id="root"></div>')
    const app = consoleRoutes(loadConsoleAssets(dir)!)
    const browser = { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } }
    for (const path of ['/nope', '/skillsx', '/a/b/c']) {
      const response = await app.request(path, browser)
      expect(response.status, path).toBe(404)
      expect(await response.text()).toBe('<div id="root"></div>')
      expect(response.headers.get('content-security-policy')).toContain("default-src 'self'")
    }
    for (const path of ['/api/nope', '/api', '/mcp', '/auth/nope', '/oauth/nope', '/metrics', '/openapi.json', '/.well-known/x']) {
      const response = await app.request(path, browser)
      expect(response.status, path).toBe(404)
      expect(await response.text(), path).not.toContain('root')
    }
    // Programs (no text/html in Accept) keep the server's answer.
    expect(await (await app.request('/nope', { headers: { accept: '*/*' } })).text()).not.toContain('root')
  })
})
