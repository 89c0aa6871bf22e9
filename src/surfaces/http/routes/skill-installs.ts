import type { Context } from 'hono'
import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import type { InstallOutcome } from '../../../install/index.js'
import { dropUpload, managedTarget, parseRemoteSource, pinSource } from '../../../install/index.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, returns, serve } from '../openapi/declare.js'
import { InstallReport, Rollback } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { readUpload } from '../read-upload.js'
import { requireAbility } from '../middleware/require-ability.js'
import { skillInstallBody, skillUploadFields, skillUploadForm } from '../request-schemas.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { isValidName } from '../../../sources/agent-skills/index.js'

/** Installing skills into the data dir over HTTP: from a network source, from an upload, and rolling one back (admin). */
export function skillInstallRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()

  const install = createRoute({
    method: 'post',
    path: '/install',
    summary:
      'Install skills into the data dir from a git URL, OWNER/REPO or archive URL: planned, validated and risk-scanned first; dryRun answers with the plan (admin)',
    middleware: [requireAbility('manageSkills')] as const,
    request: { ...body(skillInstallBody) },
    responses: { 201: returns(InstallReport, 'The install report'), 200: returns(InstallReport, 'The plan, for a dry run'), ...failures(400, 401, 403, 409) },
  })
  serve(app, install, async (c) => {
    const body = await parseBody(c, skillInstallBody, 'invalid install')
    if (!body.ok) return body.response
    const { source: text, pin, skills, dryRun, acceptRisk, allowLoopback, allowRedirects } = body.value
    let source = parseRemoteSource(text)
    if (pin !== undefined) source = pinSource(source, pin)
    return answer(c, await plane.skills.install({ from: { source }, skills, dryRun, acceptRisk, access: { allowLoopback, allowRedirects } }, c.get('caller')))
  })

  const upload = createRoute({
    method: 'post',
    path: '/upload',
    summary: 'Upload a .zip or .tar.gz bundle of skills and install it, kept under its SHA-256; high-risk findings need acceptRisk (admin)',
    middleware: [requireAbility('manageSkills')] as const,
    request: { ...body(skillUploadForm, { multipart: true }) },
    responses: {
      201: returns(InstallReport, 'The install report, as for /api/skills/install'),
      200: returns(InstallReport, 'The plan, for a dry run'),
      ...failures(400, 401, 403, 409, 413),
    },
  })
  serve(app, upload, async (c) => {
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

  const rollback = createRoute({
    method: 'post',
    path: '/{key}/rollback',
    summary: 'Put back the version of an installed skill that its last install or upload replaced (admin)',
    middleware: [requireAbility('manageSkills')] as const,
    request: { ...params('/{key}/rollback') },
    responses: { 200: returns(Rollback, '{ ok, name, restored, replaced }'), ...failures(401, 403, 404, 409) },
  })
  serve(app, rollback, async (c) => {
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
