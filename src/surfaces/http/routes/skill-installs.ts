import { Hono, type Context } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { InstallOutcome } from '../../../plane/index.js'
import { dropUpload, managedTarget, parseRemoteSource, pinSource } from '../../../sources/bundles/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { readUpload } from '../read-upload.js'
import { requireRole } from '../middleware/require-role.js'
import { skillInstallBody, skillUploadFields } from '../request-schemas.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { isValidName } from '../../../sources/agent-skills/index.js'

/** Installing skills into the data dir over HTTP: from a network source, from an upload, and rolling one back (admin). */
export function skillInstallRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()

  app.post('/install', requireRole('admin'), async (c) => {
    const body = await parseBody(c, skillInstallBody, 'invalid install')
    if (!body.ok) return body.response
    const { source: text, pin, skills, dryRun, acceptRisk, allowLoopback, allowRedirects } = body.value
    let source = parseRemoteSource(text)
    if (pin !== undefined) source = pinSource(source, pin)
    return answer(c, await plane.skills.install({ from: { source }, skills, dryRun, acceptRisk, access: { allowLoopback, allowRedirects } }, c.get('caller')))
  })

  app.post('/upload', requireRole('admin'), async (c) => {
    const read = await readUpload(c, managedTarget(plane.status.dataDir), Object.keys(skillUploadFields.shape))
    if (!read.ok) return read.response
    const { upload, filename } = read
    const fields = parseInput(skillUploadFields, read.fields)
    if (!fields.success) {
      dropUpload(upload)
      return errorResponse(c, 'invalid_input', `invalid upload: ${describeZod(fields.error)}`)
    }
    const { skills, dryRun, acceptRisk } = fields.data
    return answer(c, await plane.skills.install({ from: { upload, filename }, skills, dryRun, acceptRisk }, c.get('caller')))
  })

  app.post('/:key/rollback', requireRole('admin'), async (c) => {
    const name = c.req.param('key')
    if (!isValidName(name)) return errorResponse(c, 'not_found', `"${name.slice(0, 100)}" is not an installed skill's name (a-z, 0-9 and single hyphens)`)
    const rolled = await plane.skills.rollback(name, c.get('caller'))
    if (!rolled.ok) return errorResponse(c, rolled.code, rolled.message)
    return c.json(rolled)
  })

  return app
}

// A refusal after planning carries the plan: the admin reads the findings before sending acceptRisk.
function answer(c: Context<HttpEnv>, outcome: InstallOutcome) {
  if (!outcome.ok) return errorResponse(c, outcome.code, outcome.message, outcome.report && { report: outcome.report })
  return c.json(outcome.report, outcome.report.applied ? 201 : 200)
}
