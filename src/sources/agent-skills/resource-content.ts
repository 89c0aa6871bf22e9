import { isUtf8 } from 'node:buffer'
import { lookup } from 'mime-types'

/** A resource as MCP describes one: text in `content`, anything else base64 in `blob`. */
export type ResourceContent = { path: string; bytes: number; mimeType: string } & ({ content: string } | { blob: string })

/**
 * A file's content for read_skill_resource. Binary means not valid UTF-8 or holding a NUL byte
 * (fonts, images and PDFs are both), whatever its name says; the MIME type comes from the name.
 */
export function resourceContent(path: string, data: Buffer): ResourceContent {
  const known = lookup(path)
  if (isUtf8(data) && !data.includes(0)) return { path, bytes: data.length, mimeType: known || 'text/plain', content: data.toString('utf8') }
  return { path, bytes: data.length, mimeType: known || 'application/octet-stream', blob: data.toString('base64') }
}
