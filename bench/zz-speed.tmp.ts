import pino from 'pino'
import { readFileSync } from 'node:fs'
import { createSkillplane, defineSkill } from '../src/index.js'
const des = JSON.parse(readFileSync('/work/shared/data/metatool/plugin_des.json', 'utf8')) as Record<string, string>
const entries = Object.entries(des)
const words = entries.flatMap(([, d]) => d.split(/\W+/)).filter((w) => w.length > 3)
let seed = 1
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647
const skills = Array.from({ length: 10_000 }, (_, i) => {
  const [name, d] = entries[i % entries.length]!
  const extra = Array.from({ length: 8 }, () => words[Math.floor(rnd() * words.length)]).join(' ')
  return defineSkill({
    key: `s${i}_${name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/_+$/, '')}`
      .slice(0, 60)
      .replace(/_+$/, ''),
    description: `${d} ${extra}`,
    class: 'safe',
    run: () => ({}),
  })
})
const plane = await createSkillplane({ config: { skills }, dataDir: '/tmp/dq/data' + Date.now(), logger: pino({ level: 'silent' }) })
const heap0 = process.memoryUsage().heapUsed
let t = performance.now()
plane.discovery.stats()
console.log('index build ms', (performance.now() - t).toFixed(0), 'heap MB', ((process.memoryUsage().heapUsed - heap0) / 1e6).toFixed(1))
const admin = { kind: 'user', id: 'a', name: 'a', role: 'admin' } as const
const qs = entries.slice(0, 200).map(([, d]) => d.split(' ').slice(0, 8).join(' '))
const times: number[] = []
for (let r = 0; r < 3; r++)
  for (const q of qs) {
    t = performance.now()
    await plane.discovery.discover(admin, { query: q })
    times.push(performance.now() - t)
  }
times.sort((a, b) => a - b)
console.log('p50', times[Math.floor(times.length * 0.5)]!.toFixed(2), 'p99', times[Math.floor(times.length * 0.99)]!.toFixed(2))
import('node:inspector').then(() => {})
const { Session } = await import('node:inspector/promises')
const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.start')
for (const q of qs) await plane.discovery.discover(admin, { query: q })
const { profile } = (await session.post('Profiler.stop')) as any
const self = new Map<string, number>()
const dt = profile.timeDeltas as number[]
const byId = new Map(profile.nodes.map((n: any) => [n.id, n]))
profile.samples.forEach((id: number, i: number) => {
  const n: any = byId.get(id)
  const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`
  self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0))
})
console.log(
  [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .map(([k, v]) => `${(v / 1000).toFixed(0)}ms ${k}`)
    .join('\n'),
)
await plane.close()
