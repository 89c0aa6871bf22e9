import { lstat, open, readdir, readFile, readlink, realpath } from 'node:fs/promises'
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path'
import { RISK_LEVELS, riskLevelAtLeast, type RiskFinding, type RiskLevel } from '../registry/index.js'
import { isInside } from '../system/index.js'
import { parseSkillMd, SKILL_FILE } from '../sources/agent-skills/index.js'

export { RISK_LEVELS, riskLevelAtLeast, type RiskFinding, type RiskLevel }

export interface ScanOptions {
  /** A non-text file above this many bytes is a very large binary (default 5 MiB). */
  largeBinaryBytes?: number
}

/** Findings at this level or above are installed only when someone accepts them (`--accept-risk`). */
export const ACCEPT_RISK_LEVEL: RiskLevel = 'high'

/** The findings someone has to accept before the skill is installed; none when it may go in as it is. */
export function risksNeedingAcceptance(findings: readonly RiskFinding[]): RiskFinding[] {
  return findings.filter((f) => riskLevelAtLeast([f], ACCEPT_RISK_LEVEL))
}

const LARGE_BINARY_BYTES = 5 * 1024 * 1024
// As git decides: a NUL in the first 8000 bytes makes a file binary.
const SNIFF_BYTES = 8000
// A rule matching many lines of one file is reported this often, then summed up (the sum sorts after them).
const PER_FILE_RULE = 5
// Prose, where commands are described rather than run: fetching and secrets there are only info.
const DOCUMENT = new Set(['.md', '.markdown', '.mdx', '.txt', '.rst', '.adoc'])
const SOURCE = new Set(['.c', '.cc', '.cpp', '.cxx', '.h', '.go', '.rs', '.zig', '.swift', '.m', '.java', '.kt', '.cs', '.nim', '.d', '.hs', '.ml'])

// Interpreters that run what arrives on stdin; with code of their own (`python -c`, `node -e`) stdin is only data.
const RUNS_STDIN = [
  String.raw`(?:ba|z|da|k|fi|c|tc)?sh\b(?!\s+-\w*c\b)`,
  String.raw`(?:pwsh|powershell)\b(?!\s+-(?:c|command)\b)`,
  String.raw`python[\d.]*\b(?!\s+-\w*[cm]\b)`,
  String.raw`(?:node|deno|bun|perl|ruby|php)\b(?!\s+-\w*[er]\b)`,
  String.raw`(?:iex|Invoke-Expression)\b`,
].join('|')
const SHELLS = String.raw`(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:\S*/)?(?:${RUNS_STDIN})`
const FETCHERS = String.raw`curl|wget|fetch|iwr|irm|Invoke-WebRequest|Invoke-RestMethod`

interface LineRule {
  rule: string
  pattern: RegExp
}

interface MatchRule {
  rule: string
  pattern: RegExp
  message: (match: string) => string
}

/** Downloads run as they arrive: always high, in prose too (an agent follows instructions). */
const REMOTE_EXEC: Array<LineRule & { message: string }> = [
  { rule: 'remote-exec', pattern: new RegExp(String.raw`\b(?:${FETCHERS})\b[^|\n]*\|\s*(?:${SHELLS})`, 'i'), message: 'pipes a download into an interpreter' },
  {
    rule: 'remote-exec',
    pattern: new RegExp(String.raw`\b(?:eval|exec|source|sh\s+-c|bash\s+-c|zsh\s+-c)\s*[("']*\s*\$\(\s*(?:${FETCHERS})\b`, 'i'),
    message: 'evaluates the output of a download',
  },
  {
    rule: 'remote-exec',
    pattern: new RegExp(String.raw`(?:\b\w*sh|\bsource|(?:^|\s)\.)\s+<\(\s*(?:${FETCHERS})\b`, 'i'),
    message: 'runs a download as a script',
  },
  {
    rule: 'remote-exec',
    pattern: /\b(?:iex|Invoke-Expression)\b.*(?:\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b|DownloadString|Net\.WebClient)/i,
    message: 'evaluates a download (PowerShell)',
  },
  {
    rule: 'remote-exec',
    pattern: /(?:\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b|DownloadString)[^|\n]*\|\s*(?:iex|Invoke-Expression)\b/i,
    message: 'pipes a download into Invoke-Expression',
  },
  {
    rule: 'remote-exec',
    pattern: /(?<![.\w])(?:exec|eval)\s*\(\s*(?:\w+\s*\(\s*)?(?:requests\.|urllib|urlopen|httpx\.|(?:await\s+)?\(?\s*(?:await\s+)?fetch\s*\()/,
    message: 'evaluates downloaded text',
  },
  { rule: 'remote-exec', pattern: /\bnew\s+Function\s*\([^)]*\bfetch\s*\(/, message: 'evaluates downloaded text' },
  {
    rule: 'decoded-exec',
    pattern: new RegExp(String.raw`\bbase64\s+(?:-d|--decode|-D)\b[^|\n]*\|\s*(?:${SHELLS})`, 'i'),
    message: 'runs text it decodes from base64, which hides what it runs',
  },
]

const NETWORK: MatchRule = {
  rule: 'network-fetch',
  pattern:
    /\b(curl|wget|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|Net\.WebClient|DownloadString|DownloadFile|urllib|urlopen|httpx|aiohttp|axios|node-fetch)\b|\bfetch\s*\(|\brequests\.(?:get|post|put|patch|delete|head|request|Session)\b|\bhttps?\.(?:get|request)\s*\(|\/dev\/(?:tcp|udp)\//,
  message: (m) => `fetches from the network (${m.replace(/\s*\($/, '(')})`,
}

/** Runtime evaluation: high in a script that also fetches (the text it runs may be downloaded). */
const DYNAMIC_EVAL = /\beval\b|(?<![.\w])exec\s*\(|\bInvoke-Expression\b|\biex\b|\bnew\s+Function\s*\(/

const CREDENTIAL_FILES: MatchRule = {
  rule: 'credential-read',
  pattern:
    /(?:^|[^\w.])\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|(?:^|[^\w.])\.aws\b|(?:^|[^\w])\.netrc\b|\/etc\/(?:shadow|gshadow|sudoers)\b|(?:^|[^\w.])\.gnupg\b|\.kube\/config\b|\.docker\/config\.json\b|\.git-credentials\b|(?:^|[^\w.])\.(?:npmrc|pypirc)\b|\.config\/gh\/hosts\.yml|\bsecurity\s+find-(?:generic|internet)-password\b/,
  message: (m) => `reads credentials (${m.replace(/^[^.\w](?=\.)/, '')})`,
}

const SECRET_ENV: MatchRule = {
  rule: 'secret-env',
  pattern:
    /\b(?:AWS_SECRET_ACCESS_KEY|AWS_ACCESS_KEY_ID|AWS_SESSION_TOKEN|GOOGLE_APPLICATION_CREDENTIALS|AZURE_CLIENT_SECRET|[A-Z][A-Z0-9_]*_(?:TOKEN|SECRET|SECRET_KEY|API_KEY|PASSWORD|PASSWD|PRIVATE_KEY))\b/,
  message: (m) => `reads the secret environment variable ${m}`,
}

const HOME_DIR: MatchRule = {
  rule: 'home-read',
  pattern: /\$HOME\b|\$\{HOME\}|\$env:(?:USERPROFILE|HOME)\b|%USERPROFILE%|~\/\.config\b|\b(?:os\.homedir|expanduser|Path\.home|homedir)(?=\s*\()/,
  message: (m) => `reads the home directory (${m})`,
}

/**
 * What a skill folder's files would do that someone should see before installing it: scripts that
 * fetch from the network or run what they fetch, read credentials or home directories, wildcard
 * `allowed-tools`, binaries without their source, very large binaries, symlinks. Reads every file
 * (text line by line), follows no symlink and runs nothing. Worst first, then by file and line.
 */
export async function scanRisks(dir: string, options: ScanOptions = {}): Promise<RiskFinding[]> {
  const root = await realpath(resolve(dir))
  const largeBinary = options.largeBinaryBytes ?? LARGE_BINARY_BYTES
  const findings: RiskFinding[] = []
  const files = await walk(root)
  const names = new Set(files.map((f) => f.path))

  for (const file of files) {
    const shown = relative(root, file.path).split(sep).join('/')
    if (file.link) {
      findings.push(await symlinkFinding(root, file.path, shown))
      continue
    }
    const head = await readHead(file.path)
    const executable = (file.mode & 0o111) !== 0
    const magic = binaryFormat(head)
    if (magic || head.includes(0)) {
      if (magic || executable) {
        const source = sourceBeside(file.path, names)
        findings.push(
          source
            ? {
                level: 'warning',
                rule: 'prebuilt-binary',
                file: shown,
                message: `${magic ?? 'executable binary'}; ${basename(source)} is beside it, but nothing shows the binary was built from it`,
              }
            : { level: 'high', rule: 'binary-executable', file: shown, message: `${magic ?? 'executable binary'} without its source in the skill` },
        )
      }
      if (file.size > largeBinary)
        findings.push({ level: 'warning', rule: 'large-binary', file: shown, message: `binary of ${mebibytes(file.size)} (over ${mebibytes(largeBinary)})` })
      continue
    }
    const text = (await readFile(file.path)).toString('utf8')
    findings.push(...scanText(shown, text))
    if (basename(file.path) === SKILL_FILE) findings.push(...allowedToolsFindings(shown, text))
  }
  return findings.sort(
    (a, b) =>
      RISK_LEVELS.indexOf(b.level) - RISK_LEVELS.indexOf(a.level) ||
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER),
  )
}

interface Entry {
  path: string
  mode: number
  size: number
  link: boolean
}

/** Every file and symlink under root, without following links. */
async function walk(root: string): Promise<Entry[]> {
  const entries: Entry[] = []
  const pending = [root]
  while (pending.length) {
    const dir = pending.pop()!
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name)
      const stat = await lstat(path)
      if (stat.isDirectory()) pending.push(path)
      else if (stat.isSymbolicLink() || stat.isFile()) entries.push({ path, mode: stat.mode, size: stat.size, link: stat.isSymbolicLink() })
    }
  }
  return entries
}

async function symlinkFinding(root: string, path: string, shown: string): Promise<RiskFinding> {
  const target = await readlink(path)
  let real: string
  try {
    real = await realpath(path)
  } catch {
    return { level: 'warning', rule: 'symlink', file: shown, message: `symlink to ${target}, which does not exist` }
  }
  return isInside(root, real)
    ? { level: 'info', rule: 'symlink', file: shown, message: `symlink to ${target}, inside the skill` }
    : { level: 'warning', rule: 'symlink', file: shown, message: `symlink to ${target}, outside the skill` }
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r')
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

/** The executable format a file's first bytes announce, if any. */
function binaryFormat(head: Buffer): string | undefined {
  if (head.length < 4) return undefined
  if (head[0] === 0x7f && head.toString('latin1', 1, 4) === 'ELF') return 'ELF executable'
  const word = head.readUInt32BE(0)
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(word)) return 'Mach-O executable'
  if (head[0] === 0x4d && head[1] === 0x5a) return 'Windows (PE) executable'
  return undefined
}

/** A source file of the same name beside a binary (tool and tool.c, say). */
function sourceBeside(path: string, files: ReadonlySet<string>): string | undefined {
  const stem = join(dirname(path), basename(path, extname(path)))
  return [...SOURCE].map((ext) => stem + ext).find((candidate) => files.has(candidate))
}

function scanText(file: string, text: string): RiskFinding[] {
  const prose = DOCUMENT.has(extname(file).toLowerCase())
  const lines = text.split(/\r?\n/)
  const fetches = lines.some((line) => NETWORK.pattern.test(line))
  const found: RiskFinding[] = []
  const counts = new Map<string, number>()
  const add = (finding: RiskFinding) => {
    const seen = (counts.get(finding.rule) ?? 0) + 1
    counts.set(finding.rule, seen)
    if (seen <= PER_FILE_RULE) found.push(finding)
  }
  // In prose, fetching, secret variables and the home directory are mostly code samples: one line sums them up.
  const mentions = new Mentions()
  lines.forEach((line, index) => {
    const at = { file, line: index + 1 }
    const remote = REMOTE_EXEC.find((r) => r.pattern.test(line))
    if (remote) add({ level: 'high', rule: remote.rule, ...at, message: remote.message })
    else if (!prose && fetches && DYNAMIC_EVAL.test(line))
      add({ level: 'high', rule: 'remote-exec', ...at, message: 'evaluates text at run time in a script that fetches from the network' })
    else {
      const network = NETWORK.pattern.exec(line)
      if (network && prose) mentions.add(index, NETWORK, network[0])
      else if (network) add({ level: 'warning', rule: NETWORK.rule, ...at, message: NETWORK.message(network[0]) })
    }
    const credential = CREDENTIAL_FILES.pattern.exec(line)
    if (credential) add({ level: 'high', rule: CREDENTIAL_FILES.rule, ...at, message: CREDENTIAL_FILES.message(credential[0]) })
    const secret = SECRET_ENV.pattern.exec(line)
    if (secret && prose) mentions.add(index, SECRET_ENV, secret[0])
    // A secret in a script that also reaches the network is how secrets leave.
    else if (secret) add({ level: fetches ? 'high' : 'warning', rule: SECRET_ENV.rule, ...at, message: SECRET_ENV.message(secret[0]) })
    const home = HOME_DIR.pattern.exec(line)
    if (home && prose) mentions.add(index, HOME_DIR, home[0])
    else if (home) add({ level: 'warning', rule: HOME_DIR.rule, ...at, message: HOME_DIR.message(home[0]) })
  })
  for (const [rule, seen] of counts) {
    if (seen <= PER_FILE_RULE) continue
    const last = found.filter((f) => f.rule === rule).at(-1)!
    found.push({ ...last, line: undefined, message: `${seen - PER_FILE_RULE} more lines match ${rule}` })
  }
  const summary = mentions.finding(file)
  return summary ? [...found, summary] : found
}

// What each rule's matches are called in a prose file's summary line.
const MENTIONED: Record<string, string> = { [NETWORK.rule]: 'network fetching', [SECRET_ENV.rule]: 'secret variables', [HOME_DIR.rule]: 'the home directory' }
const MENTIONED_WORDS = 3

/** The lines of a prose file that name fetching, secrets or the home directory, summed up in one info finding. */
class Mentions {
  readonly #lines = new Set<number>()
  readonly #words = new Map<string, Set<string>>()

  add(line: number, rule: MatchRule, match: string): void {
    this.#lines.add(line)
    const words = this.#words.get(rule.rule) ?? new Set<string>()
    words.add(match.replace(/\s*\($/, '('))
    this.#words.set(rule.rule, words)
  }

  finding(file: string): RiskFinding | null {
    if (this.#lines.size === 0) return null
    const kinds = Object.keys(MENTIONED)
      .filter((rule) => this.#words.has(rule))
      .map((rule) => {
        const words = [...this.#words.get(rule)!]
        return `${MENTIONED[rule]} (${words.slice(0, MENTIONED_WORDS).join(', ')}${words.length > MENTIONED_WORDS ? ', …' : ''})`
      })
    const lines = this.#lines.size === 1 ? 'line' : 'lines'
    return { level: 'info', rule: 'prose-mentions', file, message: `names ${kinds.join(', ')} on ${this.#lines.size} ${lines} of prose and code samples` }
  }
}

// Tools that grant everything: any tool, any shell command, every tool of a server.
const UNRESTRICTED_SHELL = /^(?:bash|shell|sh|powershell|pwsh|terminal|exec|run_shell_command)$/i

function allowedToolsFindings(file: string, text: string): RiskFinding[] {
  const parsed = parseSkillMd(text)
  if (!parsed.ok) return []
  const value = parsed.parsed.data['allowed-tools']
  const tools = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? splitTools(value) : []
  const line = parsed.parsed.keyLines['allowed-tools']
  const findings: RiskFinding[] = []
  for (const tool of tools) {
    const paren = tool.indexOf('(')
    const name = paren === -1 ? tool : tool.slice(0, paren)
    const scope = paren === -1 ? null : tool.slice(paren + 1, tool.endsWith(')') ? -1 : undefined).trim()
    const why =
      tool === '*'
        ? 'allows every tool'
        : name.includes('*')
          ? 'allows every tool its pattern matches'
          : scope === null && UNRESTRICTED_SHELL.test(name)
            ? 'allows any shell command'
            : scope !== null && /^(?:\*|:\*|\*:\*)$/.test(scope)
              ? `allows ${name} with any arguments`
              : null
    if (why)
      findings.push({ level: 'warning', rule: 'allowed-tools-wildcard', file, ...(line !== undefined && { line }), message: `allowed-tools "${tool}" ${why}` })
  }
  return findings
}

/** Tool names split on spaces and commas outside parentheses: `Bash(git status:*) Read` is two tools. */
function splitTools(value: string): string[] {
  const tools: string[] = []
  let depth = 0
  let current = ''
  for (const char of value) {
    if (char === '(') depth++
    if (char === ')') depth = Math.max(0, depth - 1)
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current) tools.push(current)
      current = ''
    } else current += char
  }
  if (current) tools.push(current)
  return tools
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}
