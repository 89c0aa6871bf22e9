import { statfs } from 'node:fs/promises'
import { defineSkill } from 'skillplane'
import { z } from 'zod'

export const diskUsage = defineSkill({
  key: 'disk_usage',
  title: 'Disk usage',
  description: 'Report total, free and used bytes of the filesystem holding a path, on the chosen edge host',
  class: 'safe',
  scope: 'host',
  category: 'fleet',
  tags: ['storage', 'capacity'],
  agents: ['Fleet Autonomy'],
  input: z.object({ path: z.string().startsWith('/').default('/') }),
  output: z.object({ path: z.string(), totalBytes: z.number(), freeBytes: z.number(), usedPercent: z.number() }),
  run: async ({ path }) => {
    const s = await statfs(path)
    const total = s.blocks * s.bsize
    const free = s.bavail * s.bsize
    return { path, totalBytes: total, freeBytes: free, usedPercent: total === 0 ? 0 : Math.round(((total - free) / total) * 1000) / 10 }
  },
})
