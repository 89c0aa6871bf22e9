export {
  decidePolicy,
  POLICY_DECISIONS,
  POLICY_LEVELS,
  type PolicyDecision,
  type PolicyLevel,
  type EffectiveDecision,
  type Requirement,
} from './decide-policy.js'
export { Policies, type Policy, type PolicyInput } from './policies.js'
export { Approvals, APPROVAL_STATUSES, type ApprovalStatus, type ApprovalView } from './approvals.js'
export { ApprovalSeal, SECRET_ENV } from './approval-seal.js'
export { Grants, scopeProblem, type GrantView, type Granted, type GrantFailure } from './grants.js'
export { GRANT_SCOPES, GRANT_STATES, GRANT_MINUTES, type GrantScope } from './grant-scope.js'
export type { GrantState } from '../store/index.js'
export { inputHash } from './input-hash.js'
export { WebhookNotifier } from './webhook-notifier.js'
export { Sops, type SopInfo, type SopKeyConfig } from './sop/sops.js'
export { parseSop, type SopDocument } from './sop/parse-sop.js'
export { generateSigningKeys, signDocument, type SopSignature } from './sop/sop-signature.js'
