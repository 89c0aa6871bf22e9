import { basename } from 'node:path'
import { serialize } from './serialize.js'

/** What a caller is told about a thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    // Node's file errors name the server path; callers get the file's own name only.
    const { path, dest } = error as NodeJS.ErrnoException & { dest?: string }
    let message = error.message || error.name
    for (const full of [path, dest]) if (typeof full === 'string' && full.includes('/')) message = message.replaceAll(full, basename(full))
    return message
  }
  return typeof error === 'string' ? error : (serialize(() => error) ?? String(error))
}
