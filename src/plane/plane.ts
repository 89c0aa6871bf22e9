import type { Logger } from 'pino'
import type { Dialect, AuditQuery, RunRepository } from '../store/index.js'
import type { Actor, AuditEntry, AuditEvents, Histogram, HistogramBucket, SweepReport } from '../audit/index.js'
import type { Sessions, ApiKeys, Groups, Users } from '../auth/index.js'
import type { Registry, Catalog, SyncReport } from '../registry/index.js'
import type { Caller, Envelope, SkillDefinition } from '../skill/index.js'
import type { ResolvedConfig, ConfigInput } from '../config/index.js'
import type { InvokeOptions } from '../runtime/index.js'
import type { Policies, Approvals, Grants, Sops } from '../policy/index.js'
import type { InstructionLibrary, Finding, TemplateView, ExportSet } from '../sources/agent-skills/index.js'
import type { McpServerReport } from '../sources/mcp/index.js'
import type { Edges } from '../sources/edge/index.js'
import type { Discovery } from '../discovery/index.js'
import type { SourcesReport } from '../sources/skill-source/index.js'
import type { ConnectionState, ConnectionValueInfo, ValueOwner } from '../secrets/index.js'
import type { Skill } from '../skill/index.js'
import type { SharedMemory } from '../memory/index.js'
import type { Learnings } from '../learnings/index.js'
import type { SkillSharing } from '../registry/index.js'
import type { ShareOutcome } from './share-skill.js'
import type { InstallOutcome, InstallRequest, RollbackOutcome } from '../install/index.js'

/** Secrets or settings as the plane's API offers them: owners by agent name or user name. */
export interface ValueStore {
  /** Store a value (a new version); throws ConnectionValueError naming what is wrong. `by` is audited (default: the library). */
  set(name: string, value: string, owner?: ValueOwner, by?: Caller): Promise<ConnectionValueInfo>
  /** Remove one owner's value; null when there was none. */
  delete(name: string, owner?: ValueOwner, by?: Caller): Promise<ConnectionValueInfo | null>
  /** Every stored value: names, owners, versions (a setting's value too; never a secret's). */
  list(): Promise<ConnectionValueInfo[]>
}

/** What `rotateSecretsKey` did. */
export interface SecretsKeyRotation {
  resealed: number
  /** Values the old key could not open (they were unreadable before too): left as they were. */
  unreadable: number
  fingerprint: string
  /**
   * Where the new key was written: the data dir's key file, or, when the key came from the
   * environment, `secrets-key.new` beside it (written before the commit, so a crash cannot lose it).
   */
  keyFile: string
  /** The new key, only when it came from the environment (to be set there). */
  key: string | null
}

export interface PlaneOptions {
  /** A config object or factory (what a skillplane.config.ts exports by default). */
  config?: ConfigInput
  /** Where the config came from, for error messages. */
  configSource?: string
  /** SQLite file and other local state live here. Default `.skillplane`. */
  dataDir?: string
  /** postgres://… to share state between managers; SQLite under dataDir when absent. */
  databaseUrl?: string
  logger?: Logger
  /** Run `sync` at start-up (what `serve` does). Default false. */
  sync?: boolean
  /**
   * Connect the configured MCP servers at start (waiting for each first attempt). Default true;
   * without it their last known tools are listed and a server connects on its first call.
   */
  connectMcp?: boolean
  /**
   * Load the skill sources: pack and SKILL.md folders (installed skills too), HTTP skills, OpenAPI
   * documents, MCP servers. Default true; false opens the store only (the config's code skills and
   * the built-ins are the only skills, and `sync` is refused), for commands that only read and
   * write the store: keys, users, approvals, secrets, audit and the like.
   */
  sources?: boolean
  /** Start the config's `services` (before the sources) and stop them on close, as `serve` does. Default false. */
  services?: boolean
  /** The time memory TTLs, learning decay and edge token lifetimes are measured against; tests pass a fake. Default: the system clock. */
  clock?: () => Date
  /**
   * Whether this process takes part in the daily sweeps (learnings decay, audit retention) under
   * their leases. Default true; the CLI's commands other than `serve` say false, so a command run
   * from another folder never takes the day's sweep with its own working directory.
   */
  dailySweeps?: boolean
  /** Skills what is built on the plane adds beside the config's (the agent runner's test_run). */
  builtIns?: (config: ResolvedConfig) => Array<{ definition: SkillDefinition; origin: string }>
}

/** The control plane: skills from every source behind one pipeline, the store, and the catalog. */
export interface Plane {
  readonly config: ResolvedConfig
  readonly registry: Registry
  readonly catalog: Catalog
  readonly keys: ApiKeys
  /** Users, the identity behind every key: add, list, disable (every key of theirs stops at once), roles. */
  readonly users: Users
  /** Groups: roles granted to their members. */
  readonly groups: Groups
  /** Console sessions from sign-ins at the identity provider (`auth.oidc`). */
  readonly sessions: Sessions
  readonly policies: Policies
  readonly approvals: Approvals
  /** Conversation grants approvers left: list and revoke them. */
  readonly grants: Grants
  readonly sops: Sops
  readonly events: AuditEvents
  /** Agent runs as stored; the agent runner built on the plane drives them. */
  readonly runRecords: RunRepository
  /** What loading the configured skill packs found wrong (those packs were skipped). */
  readonly packFindings: readonly Finding[]
  /**
   * Load every source again (SKILL.md folders with installed skills checked against their lockfile,
   * packs, OpenAPI documents, MCP tool lists, edges): added, changed and removed skills take effect
   * at once (calls already running finish with the executor they started with), and the catalog is
   * synced. `sources` is the sources report after the reload.
   */
  reloadSources(): Promise<{ added: string[]; removed: string[]; sources: SourcesReport; sync: SyncReport }>
  /** Secrets skills declare (`ctx.secrets`), encrypted at rest; values are never read back. */
  readonly secrets: ValueStore
  /** Settings skills declare (`ctx.settings`): plain values such as an organisation name. */
  readonly settings: ValueStore
  /** Shared memory (`ctx.memory`): one per store, read and written by every skill and run. */
  readonly memory: SharedMemory
  /** Learnings skills left (`ctx.learn`): list, recall, verify, disprove; decayed daily by one manager. */
  readonly learnings: Learnings
  /** Whether a skill can run for a caller (and the agent it acts for), or which secrets and settings it still needs. */
  connectionState(skill: Skill, subjects: { caller: Caller; agentId: string | null; onBehalfOf?: Caller | null }): ConnectionState
  /** Edge agents: enrollment, their directory, and their tunnels to this manager. */
  readonly edges: Edges
  /** Skill discovery: what `discover_skills` ranks with, and what it learned. */
  readonly discovery: Discovery
  /** The configured MCP servers: connection state, the skills their tools became, problems. */
  mcpServers(): McpServerReport[]
  /**
   * Re-seal every secret and setting under a new secrets key, atomically, and store the key: in
   * the data dir's key file, or (when the key came from SKILLPLANE_SECRETS_KEY) returned to be set
   * there and left in `secrets-key.new`. Refused while another manager runs on the database (looked
   * at again inside the transaction): each must restart with the new key.
   */
  rotateSecretsKey(by: Caller): Promise<SecretsKeyRotation>
  /** Connect the MCP servers a plane opened with `connectMcp: false` has not connected yet. */
  connectMcp(): Promise<void>
  /** Every source, by kind, with what it holds and what loading it found wrong, for operators. */
  sources(): SourcesReport
  /**
   * Call `listener` (debounced) after skills, the catalog, bindings or policies changed, so that a
   * surface can tell its clients their tool list may differ. Returns the unsubscribe function.
   */
  onSkillsChanged(listener: () => void): () => void
  /** A number that moves at once whenever skills, the catalog, bindings, policies or connection values change: a cache of what they decide keeps it and is stale when it moved. */
  skillsVersion(): number
  /**
   * Share a skill (executable or instruction) with all, named agents (id, name or alias) or named
   * users (user names or ids); audited as `skill.shared` by `by`. Every surface hides it from others.
   */
  shareSkill(key: string, sharing: SkillSharing, by: Actor): Promise<ShareOutcome>
  /**
   * Install skills into the data dir from a fetched source or an upload: planned, validated and
   * scanned first; high-risk findings need acceptRisk; the replaced version is kept; audited as
   * `skill.installed` with every file's SHA-256. One install, upload or rollback at a time.
   */
  installSkills(request: InstallRequest, by: Actor): Promise<InstallOutcome>
  /** Put back the version an install replaced (the current one is kept instead); audited as `skill.rolled_back`. */
  rollbackSkill(name: string, by: Actor): Promise<RollbackOutcome>
  /** SKILL.md instruction skills from the configured folders. */
  readonly instructions: InstructionLibrary
  /** What a SKILL.md.template is rendered with for a caller (and the agent it acts for). */
  templateView(caller: Caller, agentId: string | null): TemplateView
  /** The rendered instruction-skill files an agent (as a caller) should have, with a manifest. */
  exportSkills(caller: Caller, agentId: string | null): ExportSet
  readonly dialect: Dialect
  /** The database location with any password removed. */
  readonly location: string
  readonly dataDir: string
  readonly managerId: string
  readonly logger: Logger
  /** The report of the start-up sync, when one ran. */
  readonly startupSync: SyncReport | null
  /** Rows a crashed predecessor left `running`, marked `interrupted` at start-up. */
  readonly recoveredCalls: number
  /** Finished audit rows waiting in the local backlog for the database to come back. */
  readonly auditBacklog: number
  /** Audit rows queued for the database or being committed now (the group commit's depth). */
  readonly auditQueue: number
  /** Call `listener` as each call finishes (for metrics). Returns the unsubscribe function. */
  onCallFinished(listener: (call: FinishedCall) => void): () => void
  /** Why the database can't serve requests now, or null when a trivial query succeeds in time. */
  checkDatabase(): Promise<string | null>
  invoke(key: string, input: unknown, options: InvokeOptions): Promise<Envelope>
  /** Refused (SyncRefusedError) when a config without skills would orphan a non-empty catalog, unless `force`. */
  sync(options?: { dryRun?: boolean; prune?: boolean | readonly string[]; force?: boolean }): Promise<SyncReport>
  /** Audited calls in their public shape (as HTTP and `skillplane audit --json` show them). */
  audit: {
    query(query: AuditQuery): Promise<{ items: AuditEntry[]; nextCursor: string | null }>
    get(callId: string): Promise<AuditEntry | undefined>
    /** Calls and failures per minute, hour or day with the list's filters; invalid_input for a range it can't chart. */
    histogram(
      query: Omit<AuditQuery, 'cursor' | 'limit'> & { bucket?: HistogramBucket },
    ): Promise<{ ok: true; histogram: Histogram } | { ok: false; message: string }>
    /** Calls started in [since, until), oldest first, a page at a time (for export: never all in memory). */
    pages(range: { since?: string; until?: string }): AsyncGenerator<AuditEntry[]>
    /** Apply `audit.retentionDays` / `audit.maxRows` now (the daily sweep does it on one manager); audited as `by`. */
    sweep(by?: Actor): Promise<SweepReport>
    /** The heartbeat's daily sweep: runs only on the manager that takes the day's lease; null elsewhere or within a day. */
    dailySweep(): Promise<SweepReport | null>
  }
  now(): string
  close(): Promise<void>
}

/** What a finished call reports to `onCallFinished` listeners. */
export interface FinishedCall {
  skill: string
  /** The audit row's status: ok, error, denied, approval_required, … */
  status: string
  durationMs: number | null
}
