import { writeFileSync } from 'node:fs'
import { crc32, gzipSync } from 'node:zlib'
import { pack, type Header } from 'tar-stream'

/** One member of a test archive: a name as stored (hostile ones included) and what it is. */
export interface Member {
  name: string
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'fifo' | 'character-device'
  content?: string | Buffer
  /** symlink and hard link targets */
  target?: string
  mode?: number
}

/** A gzip-compressed tar holding exactly these members, written to file. */
export async function writeTarGz(file: string, members: Member[]): Promise<void> {
  const tar = pack()
  const chunks: Buffer[] = []
  tar.on('data', (chunk) => chunks.push(chunk as Buffer))
  const ended = new Promise<void>((resolve) => tar.on('end', () => resolve()))
  for (const member of members) {
    const header: Partial<Header> & Pick<Header, 'name'> = {
      name: member.name,
      type: member.type ?? 'file',
      mode: member.mode ?? (member.type === 'directory' ? 0o755 : 0o644),
    }
    if (member.target !== undefined) header.linkname = member.target
    const done = (resolve: () => void, reject: (error: Error) => void) => (error?: Error | null) => (error ? reject(error) : resolve())
    await new Promise<void>((resolve, reject) =>
      member.type === undefined || member.type === 'file'
        ? tar.entry(header, Buffer.from(member.content ?? ''), done(resolve, reject))
        : tar.entry(header, done(resolve, reject)),
    )
  }
  tar.finalize()
  await ended
  writeFileSync(file, gzipSync(Buffer.concat(chunks)))
}

const S_IF = { file: 0o100000, directory: 0o040000, symlink: 0o120000, fifo: 0o010000, 'character-device': 0o020000, link: 0o100000 }

/** A zip (stored, made on Unix) holding exactly these members, written to file. */
export function writeZip(file: string, members: Member[]): void {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const member of members) {
    const type = member.type ?? 'file'
    const name = Buffer.from(member.name)
    const data = type === 'symlink' ? Buffer.from(member.target ?? '') : Buffer.from(member.content ?? '')
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0x800, 6)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE((3 << 8) | 20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(0x800, 8)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(((S_IF[type] | (member.mode ?? (type === 'directory' ? 0o755 : 0o644))) << 16) >>> 0, 38)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, data)
    centrals.push(central, name)
    offset += local.length + name.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(members.length, 8)
  end.writeUInt16LE(members.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  writeFileSync(file, Buffer.concat([...locals, directory, end]))
}
