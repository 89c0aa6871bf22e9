import { html } from 'hono/html'

/** The root page where the console was not built (`tsc` alone, say): where to go next. `html` escapes interpolations. */
export function landingPage(version: string) {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>skillplane</title>
        <style>
          body {
            font:
              16px/1.5 system-ui,
              sans-serif;
            max-width: 44rem;
            margin: 3rem auto;
            padding: 0 1rem;
          }
          code {
            background: #f2f2f2;
            padding: 0 0.25rem;
          }
        </style>
      </head>
      <body>
        <h1>skillplane <small>${version}</small></h1>
        <p>The control plane is running. Every API route takes <code>Authorization: Bearer &lt;key&gt;</code>.</p>
        <p>The web console is not built in this installation: <code>npm run build</code> builds it into <code>dist/console</code>.</p>
        <ul>
          <li>
            <a href="/api/health">/api/health</a>: health and database (no key needed); <code>/api/health/live</code> and <code>/api/health/ready</code> for
            probes
          </li>
          <li><code>GET /api/skills</code>: the skills your key may see</li>
          <li><code>POST /api/skills/{key}/invoke</code>: run one</li>
          <li><code>GET /api/audit</code>: every call</li>
          <li><a href="/openapi.json">/openapi.json</a>: the OpenAPI 3.1 document</li>
        </ul>
      </body>
    </html>`
}
