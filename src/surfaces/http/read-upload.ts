import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream } from 'node:stream/web'
import busboy from 'busboy'
import type { Context } from 'hono'
import { ArchiveError, dropUpload, receiveUpload, type InstallTarget, type ReceivedUpload } from '../../install/index.js'
import { errorResponse } from './error-response.js'

export type ReadUpload = { ok: true; upload: ReceivedUpload; filename: string; fields: Record<string, string> } | { ok: false; response: Response }

const FILE_FIELD = 'bundle'

/**
 * A multipart upload: one file part named `bundle`, streamed into the upload store as it arrives
 * (never held in memory), and a few short text fields. Anything else is refused by name.
 */
export async function readUpload(c: Context, target: InstallTarget, fieldNames: readonly string[]): Promise<ReadUpload> {
  const type = c.req.header('content-type') ?? ''
  if (!/^multipart\/form-data\b/i.test(type))
    return refuse(c, `send multipart/form-data with the bundle in a file part named "${FILE_FIELD}", not ${type || 'no content type'}`)
  const body = c.req.raw.body
  if (!body) return refuse(c, `no body: send the bundle in a file part named "${FILE_FIELD}"`)
  let parser: busboy.Busboy
  try {
    parser = busboy({ headers: { 'content-type': type }, limits: { files: 1, fields: fieldNames.length, fieldSize: 4096, parts: fieldNames.length + 1 } })
  } catch (error) {
    return refuse(c, `the multipart body can't be read: ${(error as Error).message}`)
  }
  // A refused bundle (too large, not an archive) stops the reading at once: nothing more of the body is wanted.
  let refused: (error: unknown) => void = () => undefined
  const stopped = new Promise<never>((_, reject) => (refused = reject))
  const fields: Record<string, string> = {}
  let problem: string | null = null
  let received: Promise<ReceivedUpload> | null = null
  let filename = ''
  parser.on('file', (name, stream, info) => {
    if (name !== FILE_FIELD || received) {
      problem ??= name !== FILE_FIELD ? `unexpected file part "${name}": the bundle goes in "${FILE_FIELD}"` : `send one bundle per upload`
      stream.resume()
      return
    }
    filename = (info.filename ?? '').slice(0, 255)
    received = receiveUpload(target, stream)
    received.catch(refused)
  })
  parser.on('field', (name, value, info) => {
    if (!fieldNames.includes(name)) problem ??= `unexpected field "${name}" (fields: ${[FILE_FIELD, ...fieldNames].join(', ')})`
    else if (info.valueTruncated) problem ??= `field "${name}" is too long`
    else fields[name] = value
  })
  for (const limit of ['filesLimit', 'fieldsLimit', 'partsLimit'] as const)
    parser.on(limit, () => (problem ??= 'too many parts: send one bundle and the fields named'))
  const source = Readable.fromWeb(body as ReadableStream)
  try {
    await Promise.race([pipeline(source, parser), stopped])
  } catch (error) {
    source.destroy()
    const upload = await (received as Promise<ReceivedUpload> | null)?.catch(() => null)
    if (upload) dropUpload(upload)
    if (error instanceof ArchiveError) return tooLargeOr(c, error, filename)
    return refuse(c, `the multipart body can't be read: ${(error as Error).message}`)
  }
  if (!received) return refuse(c, problem ?? `no file part named "${FILE_FIELD}": send the bundle in it`)
  let upload: ReceivedUpload
  try {
    upload = await received
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error
    return tooLargeOr(c, error, filename)
  }
  if (problem) {
    dropUpload(upload)
    return refuse(c, problem)
  }
  return { ok: true, upload, filename, fields }
}

function tooLargeOr(c: Context, error: ArchiveError, filename: string): ReadUpload {
  const code = /limit/.test(error.reason) ? 'payload_too_large' : 'invalid_input'
  return { ok: false, response: errorResponse(c, code, `bundle ${filename ? `"${filename}" ` : ''}refused: ${error.reason}`) }
}

function refuse(c: Context, message: string): ReadUpload {
  return { ok: false, response: errorResponse(c, 'invalid_input', message) }
}
