import { describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { landingPage } from './landing-page.js'

describe('the landing page (served at / when the console was not built)', () => {
  it('says how to build the console and where the API is, escaping what it is given', async () => {
    const app = new Hono().get('/', (c) => c.html(landingPage('<script>1</script>')))
    const text = await (await app.request('/')).text()
    expect(text).toContain('npm run build')
    expect(text).toContain('/openapi.json')
    expect(text).toContain('&lt;script&gt;1&lt;/script&gt;')
    expect(text).not.toContain('<script>1')
  })
})
