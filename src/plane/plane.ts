import type { Logger } from 'pino'
import type { Dialect, McpSessionRepository } from '../store/index.js'
import type { Actor, AuditEvents, AuditReader } from '../audit/index.js'
import type { Sessions, ApiKeys, Groups, Users } from '../accounts/index.js'
import type { Registry, Catalog, CatalogReader, SyncOptions, SyncReport, SkillSharing } from '../registry/index.js'
import type { Caller, Envelope, Skill, SkillDefinition } from '../skill/index.js'
import type { ResolvedConfig, ConfigInput } from '../config/index.js'
import type { InvokeOptions } from '../runtime/index.js'
import type { Policies, Approvals, Grants, Sops } from '../policy/index.js'
import type { InstructionLibrary, Finding, TemplateView, ExportSet } from '../sources/agent-skills/index.js'
import type {
  ImportedPrompts,
  McpCompletion,
  McpCompletionResult,
  McpPersonListChange,
  McpResourceSet,
  McpResourceSubscription,
  McpServerReport,
} from '../sources/mcp/index.js'
import type { Edges } from '../sources/edge/index.js'
import type { Discovery } from '../discovery/index.js'
import type { SourcesReport } from '../sources/skill-source/index.js'
import type { OAuthConnections } from '../oauth/index.js'
import type { ConnectionState, ConnectionValueInfo, SecretsKeyRotation, ValueOwner } from '../connections/index.js'
import type { SharedMemory } from '../memory/index.js'
import type { Learnings } from '../learnings/index.js'
import type { ShareOutcome } from './share-skill.js'
import type { InstallOutcome, InstallRequest, RollbackOutcome } from '../install/index.js'

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
  /** The time memory TTLs, learning decay, discovery's usage decay and edge token lifetimes are measured against; tests pass a fake. Default: the system clock. */
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

/** The control plane: skills from every source behind one pipeline, and what surfaces and programs read and change. */
export interface Plane {
  readonly config: ResolvedConfig
  readonly logger: Logger
  /** Run a skill through the pipeline: the only way a skill runs, from every surface. */
  invoke(key: string, input: unknown, options: InvokeOptions): Promise<Envelope>
  /** Every skill: executable and instruction skills, their catalog rows, sync, sharing, installs, discovery. */
  readonly skills: PlaneSkills
  /** The agents the config declares (by name, alias or id) and their bindings. */
  readonly agents: PlaneAgents
  /** Approval requests, the conversation grants approvers left, and the signed SOPs dangerous calls cite. */
  readonly approvals: PlaneApprovals
  /** ALWAYS / ASK / DENY for a skill and subject. */
  readonly policies: PlanePolicies
  /** Audited calls and events. */
  readonly audit: PlaneAudit
  /** Users, groups, API keys and console sessions. */
  readonly people: PlanePeople
  /** Secrets, settings, shared memory and learnings. */
  readonly values: PlaneValues
  /** The configured sources (packs, SKILL.md folders, HTTP and OpenAPI, MCP servers) and the edges. */
  readonly sources: PlaneSources
  /** OAuth 2 providers and the connections people (and the service account) made with them. */
  readonly oauth: OAuthConnections
  /** Where and how this manager runs. */
  readonly status: PlaneStatus
  now(): string
  /** Refuse new calls from now on: the first step of closing, taken before what wraps the plane closes. */
  stopAccepting(): void
  close(): Promise<void>
}

export interface PlaneSkills extends CatalogReader {
  get(key: string): Skill | undefined
  list(): Skill[]
  /** Executable skills, the built-in tools left out. */
  readonly count: number
  /** Register a skill while the plane runs (what a source does). */
  register: Registry['register']
  edit: Catalog['edit']
  setRisks: Catalog['setRisks']
  /** Read the catalog again (another manager changed it). */
  refresh(): Promise<void>
  /** Refused (SyncRefusedError) when a config without skills would orphan a non-empty catalog, unless `force`. */
  sync(options?: SyncOptions): Promise<SyncReport>
  /**
   * Share a skill (executable or instruction) with all, named agents (id, name or alias) or named
   * users (user names or ids); audited as `skill.shared` by `by`. Every surface hides it from others.
   */
  share(key: string, sharing: SkillSharing, by: Actor): Promise<ShareOutcome>
  /**
   * Install skills into the data dir from a fetched source or an upload: planned, validated and
   * scanned first; high-risk findings need acceptRisk; the replaced version is kept; audited as
   * `skill.installed` with every file's SHA-256. One install, upload or rollback at a time.
   */
  install(request: InstallRequest, by: Actor): Promise<InstallOutcome>
  /** Put back the version an install replaced (the current one is kept instead); audited as `skill.rolled_back`. */
  rollback(name: string, by: Actor): Promise<RollbackOutcome>
  /**
   * Call `listener` (debounced) after skills, the catalog, bindings or policies changed, so that a
   * surface can tell its clients their tool list may differ. Returns the unsubscribe function.
   */
  onChanged(listener: () => void): () => void
  /** A number that moves at once whenever skills, the catalog, bindings, policies or connection values change: a cache of what they decide keeps it and is stale when it moved. */
  version(): number
  /** Whether a skill can run for a caller (and the agent it acts for), or which secrets and settings it still needs. */
  connectionState(skill: Skill, subjects: { caller: Caller; agentId: string | null; onBehalfOf?: Caller | null }): ConnectionState
  /** SKILL.md instruction skills from the configured folders. */
  readonly instructions: PlaneInstructions
  /** What a SKILL.md.template is rendered with for a caller (and the agent it acts for). */
  templateView(caller: Caller, agentId: string | null): TemplateView
  /** The rendered instruction-skill files an agent (as a caller) should have, with a manifest. */
  export(caller: Caller, agentId: string | null): ExportSet
  /** Skill discovery: what `discover_skills` ranks with, and what it learned. */
  readonly discovery: PlaneDiscovery
}

export type PlaneInstructions = Pick<InstructionLibrary, 'get' | 'skills' | 'findings' | 'dirs' | 'visibleTo' | 'description'>
export type PlaneDiscovery = Pick<Discovery, 'ready' | 'discover' | 'stats' | 'mostUsed' | 'ranking' | 'setRanking'>

export interface PlaneAgents {
  /** The agent id for a name, alias or id; undefined for an unknown label. */
  resolve: Catalog['resolveAgent']
  get: Catalog['agent']
  list: Catalog['agents']
  boundSkills: Catalog['boundSkills']
}

export interface PlaneApprovals extends Pick<Approvals, 'get' | 'list' | 'ofConversation' | 'decide' | 'withdraw' | 'pendingCount' | 'onSettled' | 'checkSop'> {
  /** Conversation grants approvers left: list and revoke them. */
  readonly grants: Pick<Grants, 'get' | 'list' | 'revoke'>
  readonly sops: Pick<Sops, 'register' | 'list' | 'revoke' | 'verify'>
}

export type PlanePolicies = Pick<Policies, 'set' | 'list' | 'rows' | 'clear' | 'refresh'>

export interface PlaneAudit extends AuditReader {
  readonly events: Pick<AuditEvents, 'list' | 'record' | 'tail'>
  /** Call `listener` as each call finishes (for metrics). Returns the unsubscribe function. */
  onCallFinished(listener: (call: FinishedCall) => void): () => void
  /** Call `listener` as each approval request this process settles stops waiting (decided or expired), with how long it waited. */
  onApprovalWaited(listener: (wait: { skill: string; seconds: number }) => void): () => void
}

export interface PlanePeople {
  readonly keys: Pick<ApiKeys, 'create' | 'authenticate' | 'callerFor' | 'list' | 'revoke' | 'count' | 'onForget'>
  /** Users, the identity behind every key: add, list, disable (every key of theirs stops at once), roles. */
  readonly users: Pick<Users, 'add' | 'ensure' | 'fromProvider' | 'get' | 'list' | 'disable' | 'enable' | 'setRole' | 'grantedRole'>
  /** Groups: roles granted to their members. */
  readonly groups: Pick<Groups, 'add' | 'get' | 'list' | 'setRole' | 'addMember' | 'removeMember'>
  /** Console sessions from sign-ins at the identity provider (`auth.oidc`). */
  readonly sessions: Pick<Sessions, 'startSignIn' | 'takeSignIn' | 'open' | 'authenticate' | 'close'>
  /** Streamable HTTP sessions of /mcp and their streams' events, kept so a session outlives its manager. */
  readonly mcpSessions: McpSessionRepository
}

export interface PlaneValues {
  /** Secrets skills declare (`ctx.secrets`), encrypted at rest; values are never read back. */
  readonly secrets: ValueStore
  /** Settings skills declare (`ctx.settings`): plain values such as an organisation name. */
  readonly settings: ValueStore
  /** Shared memory (`ctx.memory`): one per store, read and written by every skill and run. */
  readonly memory: SharedMemory
  /** Learnings skills left (`ctx.learn`): list, recall, verify, disprove; decayed daily by one manager. */
  readonly learnings: Pick<
    Learnings,
    'record' | 'list' | 'get' | 'verify' | 'disprove' | 'recall' | 'top' | 'used' | 'reinforce' | 'forget' | 'sweep' | 'dailySweep'
  >
  /**
   * Re-seal every secret and setting under a new secrets key, atomically, and store the key: in
   * the data dir's key file, or (when the key came from SKILLPLANE_SECRETS_KEY) returned to be set
   * there and left in `secrets-key.new`. Refused while another manager runs on the database (looked
   * at again inside the transaction): each must restart with the new key.
   */
  rotateSecretsKey(by: Caller): Promise<SecretsKeyRotation>
}

/** Secrets or settings as the plane's API offers them: owners by agent name or user name. */
export interface ValueStore {
  /** Store a value (a new version); throws ConnectionValueError naming what is wrong. `by` is audited (default: the library). */
  set(name: string, value: string, owner?: ValueOwner, by?: Caller): Promise<ConnectionValueInfo>
  /** Remove one owner's value; null when there was none. */
  delete(name: string, owner?: ValueOwner, by?: Caller): Promise<ConnectionValueInfo | null>
  /** Every stored value: names, owners, versions (a setting's value too; never a secret's). */
  list(): Promise<ConnectionValueInfo[]>
}

export interface PlaneSources {
  /** Every source, by kind, with what it holds and what loading it found wrong, for operators. */
  report(): SourcesReport
  /**
   * Load every source again (SKILL.md folders with installed skills checked against their lockfile,
   * packs, OpenAPI documents, MCP tool lists, edges): added, changed and removed skills take effect
   * at once (calls already running finish with the executor they started with), and the catalog is
   * synced. `sources` is the sources report after the reload.
   */
  reload(): Promise<{ added: string[]; removed: string[]; sources: SourcesReport; sync: SyncReport }>
  /** What loading the configured skill packs found wrong (those packs were skipped). */
  readonly packFindings: readonly Finding[]
  /** The configured MCP servers: connection state, the skills their tools became, problems. */
  mcpServers(): McpServerReport[]
  /** Imported servers' resources and templates, per server with a read skill, in config order (a URI two list is the first's). */
  mcpResources(): McpResourceSet[]
  /**
   * The server /mcp reads `uri` from: the first (in config order) that lists it, else the first whose
   * template matches it, among those whose read skill `usable` allows (the caller's); then, among
   * `personal` (mcpPersonResources), the first that lists it, else whose template matches it; never for a skill: URI.
   */
  mcpResourceOwner(uri: string, usable: (skill: string) => boolean, personal?: McpResourceSet[]): McpResourceSet | null
  /**
   * Per-person servers' resources and templates as `subject`'s own sessions list them (one is opened
   * when none is and their account is connected), for the servers whose read skill `usable` allows; none for nobody. `personal` of
   * mcpResourceOwner: after the shared servers'.
   */
  mcpPersonResources(subject: string | null, usable: (skill: string) => boolean): Promise<McpResourceSet[]>
  /** The per-person servers' read skills (`resources`) or get_prompt skills (`prompts`), whatever the caller. */
  mcpPersonSkills(kind: 'resources' | 'prompts'): string[]
  /**
   * Hear `notifications/resources/updated` for `uri` of `server`: one upstream subscription per URI
   * (per person, for a per-person server) however many listen. Rejects when the server refuses it.
   */
  subscribeMcpResource(
    server: string,
    uri: string,
    options: { subject: string | null; signal: AbortSignal },
    listener: (uri: string) => void,
  ): Promise<McpResourceSubscription>
  /** Connect the MCP servers a plane opened with `connectMcp: false` has not connected yet. */
  connectMcp(): Promise<void>
  /** The imported MCP servers' prompts, per server with the get_prompt skill they are got through. */
  mcpPrompts(): ImportedPrompts[]
  /** Per-person servers' prompts as `subject`'s own sessions list them, for the servers whose get_prompt skill `usable` allows; none for nobody. */
  mcpPersonPrompts(subject: string | null, usable: (skill: string) => boolean): Promise<ImportedPrompts[]>
  /** Hear each change of a person's own resource or prompt list on a per-person server (for their /mcp sessions); returns the way to stop. */
  onMcpPersonListChanged(listener: (change: McpPersonListChange) => void): () => void
  /**
   * completion/complete passed to an imported MCP server (`params.ref` in the server's own terms), for a
   * caller allowed the skill it belongs to (get_prompt, read_resource); otherwise a `denied` SkillError.
   */
  mcpComplete(server: string, params: McpCompletion, options: { caller: Caller; signal?: AbortSignal }): Promise<McpCompletionResult>
  /** Edge agents: enrollment, their directory, and their tunnels to this manager. */
  readonly edges: Pick<Edges, 'enroll' | 'tokenValid' | 'rotate' | 'list' | 'get' | 'grantSecrets' | 'revoke' | 'refresh' | 'offering' | 'handleUpgrade'>
}

export interface PlaneStatus {
  readonly dialect: Dialect
  /** The database location with any password removed. */
  readonly location: string
  readonly dataDir: string
  readonly managerId: string
  /** Whether a manager on this database is alive by the heartbeat rules (fresh; on this host, its process there). */
  managerAlive(managerId: string): Promise<boolean>
  /** The report of the start-up sync, when one ran. */
  readonly startupSync: SyncReport | null
  /** Rows a crashed predecessor left `running`, marked `interrupted` at start-up. */
  readonly recoveredCalls: number
  /** Finished audit rows waiting in the local backlog for the database to come back. */
  readonly auditBacklog: number
  /** Audit rows queued for the database or being committed now (the group commit's depth). */
  readonly auditQueue: number
  /** Why the database can't serve requests now, or null when a trivial query succeeds in time. */
  checkDatabase(): Promise<string | null>
}

/** What a finished call reports to `onCallFinished` listeners. */
export interface FinishedCall {
  skill: string
  /** The audit row's status: ok, error, denied, approval_required, … */
  status: string
  durationMs: number | null
}
