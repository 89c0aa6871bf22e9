import { defineSkill } from 'skillplane'
import { z } from 'zod'
import type { NoteStore } from './note-store.js'

const note = z.object({ id: z.number(), title: z.string(), body: z.string(), tags: z.array(z.string()), createdAt: z.string() })
const tag = z.string().regex(/^[a-z0-9-]{1,32}$/, 'tags are 1-32 characters of a-z, 0-9 and hyphens')

/** The note skills share one store, created by the config with the data dir. */
export function noteSkills(store: NoteStore) {
  const notesAdd = defineSkill({
    key: 'notes_add',
    title: 'Add a note',
    description: 'Store a short note with optional tags; returns its id',
    class: 'mutating',
    category: 'notes',
    tags: ['notes', 'write'],
    agents: ['Notes Assistant'],
    input: z.object({
      title: z.string().trim().min(1).max(200),
      body: z.string().max(10_000).default(''),
      tags: z.array(tag).max(10).default([]),
    }),
    output: note,
    examples: [{ input: { title: 'Rotate the backup keys', tags: ['ops'] } }],
    run: ({ title, body, tags }) => store.add(title, body, tags),
  })

  const notesList = defineSkill({
    key: 'notes_list',
    title: 'List notes',
    description: 'List stored notes, newest first, optionally only those with a tag',
    class: 'safe',
    category: 'notes',
    tags: ['notes', 'read'],
    agents: ['Notes Assistant'],
    input: z.object({ tag: tag.optional(), limit: z.number().int().min(1).max(500).default(50) }),
    output: z.object({ notes: z.array(note), total: z.number().int() }),
    run: ({ tag, limit }) => store.list({ tag, limit }),
  })

  const notesDigest = defineSkill({
    key: 'notes_digest',
    title: 'Digest of notes',
    description: 'Count notes per tag and name the most recent one; reads the notes through notes_list',
    class: 'safe',
    category: 'notes',
    tags: ['notes', 'report'],
    agents: ['Notes Assistant'],
    output: z.object({ total: z.number().int(), perTag: z.record(z.string(), z.number().int()), latest: z.string().nullable() }),
    run: async (_input, ctx) => {
      // A nested call: gated and audited like any other, linked to this call as its parent.
      const listed = await ctx.invoke('notes_list', { limit: 500 })
      if (!listed.ok) throw new Error(`notes_list failed: ${listed.error.message}`)
      const { notes, total } = listed.data as { notes: Array<{ title: string; tags: string[] }>; total: number }
      const perTag: Record<string, number> = {}
      for (const n of notes) for (const t of n.tags) perTag[t] = (perTag[t] ?? 0) + 1
      return { total, perTag, latest: notes[0]?.title ?? null }
    },
  })

  const notesPurge = defineSkill({
    key: 'notes_purge',
    title: 'Purge notes',
    description: 'Permanently delete notes older than a number of days, optionally only those with a tag',
    class: 'dangerous',
    category: 'notes',
    tags: ['notes', 'delete'],
    agents: ['Notes Assistant'],
    input: z.object({ olderThanDays: z.number().int().min(0), tag: tag.optional() }),
    output: z.object({ deleted: z.number().int() }),
    run: ({ olderThanDays, tag }) => ({ deleted: store.purge({ olderThanDays, tag }) }),
  })

  return [notesAdd, notesList, notesDigest, notesPurge]
}
