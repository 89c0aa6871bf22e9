export { openDatabase, redactUrl, type OpenedDatabase, type OpenDatabaseOptions, type Dialect } from './open-database.js'
export {
  AuditRepository,
  AUDIT_STATUSES,
  FINAL_COLUMNS,
  SEARCH_COLUMNS,
  type AuditRow,
  type AuditQuery,
  type AuditSearch,
  type AuditStatus,
  type SearchColumn,
} from './audit-repository.js'
export { CatalogRepository, type CatalogRow } from './catalog-repository.js'
export { AgentRepository, type AgentRow, type BindingRow } from './agent-repository.js'
export { KeyRepository, type KeyRow, type KeyWithUser } from './key-repository.js'
export { UserRepository, type UserRow, type GroupRow } from './user-repository.js'
export { ManagerRepository } from './manager-repository.js'
export { StoreError } from './store-error.js'
export type { Database } from './database.js'
export { PolicyRepository, type PolicyRow } from './policy-repository.js'
export { ApprovalRepository, type ApprovalRow, type DecisionRow } from './approval-repository.js'
export { GrantRepository, type GrantRow, type GrantState } from './grant-repository.js'
export { SopRepository, type SopRow } from './sop-repository.js'
export { EventRepository, type EventRow } from './event-repository.js'
export { SettingsRepository } from './settings-repository.js'
export { ActivationRepository, type ActivationRow } from './activation-repository.js'
export { databaseUnavailable } from './database-unavailable.js'
export { McpToolRepository } from './mcp-tool-repository.js'
export { RunRepository } from './run-repository.js'
export {
  CallTreeRepository,
  runConversation,
  TREE_CALL_CAP,
  type TreeApproval,
  type TreeCall,
  type TreeModelStep,
  type TreeRows,
  type TreeRun,
} from './call-tree-repository.js'
export type { RunRow } from './run-repository.js'
export type { RunStepRow, RunStepListed, RunTotalsChange, RunInputRow } from './run-repository.js'
export { EdgeRepository, type EdgeRow, type EdgeCallRow } from './edge-repository.js'
export type { Listener } from './pg-listener.js'
export { DiscoveryRepository, type ExampleRow, type RelationRow, type EmbeddingRow } from './discovery-repository.js'
export { ConnectionValueRepository, type ConnectionValueRow, type ConnectionValueId, type ConnectionValueMeta } from './connection-value-repository.js'
export { MemoryRepository, type MemoryEntryRow, type MemoryKeyRow } from './memory-repository.js'
export { LearningRepository, type LearningRow, type LearningQuery } from './learning-repository.js'
export { LeaseRepository } from './lease-repository.js'
export { ChangeVersionRepository } from './change-version-repository.js'
export { CatalogChangeRepository, type CatalogChanges, type CatalogVersions } from './catalog-change-repository.js'
export { sealedBinding } from './sealed-binding.js'
export { OAuthRepository, type OAuthConnectionRow, type OAuthConnectionMeta, type OAuthStateRow } from './oauth-repository.js'
export { SessionRepository, type SessionRow, type SignInRow } from './session-repository.js'
export { McpSessionRepository, type McpSessionRecord, type McpEventRecord, type MessageSealer } from './mcp-session-repository.js'
export { CallStatsRepository, type StatsTile, type StatsTotals } from './call-stats-repository.js'
export {
  STATS_DIMS,
  GRAINS,
  GRAINS_OF,
  STATS_KEPT_DAYS,
  PERCENTILE_ERROR,
  DURATION_BOUNDS,
  WAIT_BOUNDS,
  DURATION_COLUMNS,
  WAIT_COLUMNS,
  percentile,
  type StatsDim,
  type Grain,
  type WaitFacts,
} from './call-stats.js'
