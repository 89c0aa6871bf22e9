export { defineSkill, DefinitionError, type DefinedSkill } from './skill/index.js'
// skillplane's own zod: schemas made with it are the ones defineSkill reads, whatever else the project installs.
export { z } from 'zod'
export type {
  Caller,
  CallerRole,
  Envelope,
  EnvelopeError,
  JsonSchema,
  SkillClass,
  SkillContext,
  SkillDefinition,
  SkillExample,
  SkillScope,
  SkillSourceKind,
  SkillMemory,
  MemoryKeyInfo,
  MemoryPoolOption,
  LearningInput,
  CallerClient,
  ElicitParams,
  ElicitResult,
  SampleParams,
  SampleResult,
  LogMessage,
  LogLevel,
} from './skill/index.js'
export { defineConfig, ConfigError, type SkillplaneConfig, type AgentConfig, type ConfigInput, type ServiceConfig } from './config/index.js'
export { createSkillplane, type Skillplane, type SkillplaneOptions } from './agents/index.js'
export {
  createPlane,
  type Plane,
  type PlaneOptions,
  type PlaneSkills,
  type PlaneAgents,
  type PlaneApprovals,
  type PlanePolicies,
  type PlaneAudit,
  type PlanePeople,
  type PlaneValues,
  type PlaneSources,
  type PlaneStatus,
} from './plane/index.js'
export { approvalFor, type ApprovalMode, type ApprovalWait, type InvokeOptions } from './runtime/index.js'
export { SkillplaneError, type ErrorCode } from './errors/index.js'
export { SkillError, type SkillErrorCode } from './runtime/index.js'
export { StoreError } from './store/index.js'
export { MemoryError, type SharedMemory } from './memory/index.js'
export { LearningError, type Learning, type LearningListQuery, type LearningOrigin, type RecalledLearning } from './learnings/index.js'
export { createHttpApp } from './surfaces/http/index.js'
export * from './ai-sdk/index.js'
export { RunError, type AgentRunner, type RunView, type RunStep, type RunStatus, type TestRunResult, type Verdict } from './agents/index.js'
export { validateSkills, loadInstructionSkills, type InstructionSkill, type Finding } from './sources/agent-skills/index.js'
export { skillsPrompt, carriesSkillContent } from './sources/agent-skills/index.js'
