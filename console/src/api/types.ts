import type { components } from './schema'

// Names for the shapes the server's OpenAPI document declares (console/build.mjs generates `schema`
// from the routes' declarations): the console writes none of them by hand.
type Schemas = components['schemas']

export type Caller = Schemas['Caller']
export type Role = Extract<Caller, { kind: 'user' }>['role']
export type SkillSummary = Schemas['SkillSummary']
export type SkillClass = SkillSummary['class']
export type ConnectionState = Schemas['ConnectionState']
export type ExecutableDetail = Schemas['ExecutableDetail']
export type InstructionDetail = Schemas['InstructionDetail']
export type SkillDetail = ExecutableDetail | InstructionDetail
export const isExecutable = (skill: SkillDetail): skill is ExecutableDetail => 'inputSchema' in skill
export type RiskFinding = Schemas['RiskFinding']
export type Finding = Schemas['Finding']
export type AuditEntry = Schemas['AuditEntry']
export type Conversation = Schemas['Conversation']
export type Histogram = Schemas['Histogram']
export type CallTree = Schemas['CallTree']
export type Span = Schemas['Span']
export type AgentView = Schemas['Agent']
export type RunView = Schemas['Run']
export type RunStep = Schemas['RunStep']
export type RunStatus = RunView['status']
export type RunTotals = RunView['totals']
export type ModelRequest = Schemas['ModelRequest']
export type TestRunResult = Schemas['TestRunResult']
export type ApprovalView = Schemas['Approval']
export type EdgeView = Schemas['Edge']
export type Sop = Schemas['Sop']
export type Envelope = Schemas['Success'] | Schemas['Failure']
export type Policy = Schemas['Policy']
export type Decision = Policy['decision']
export type PolicyLevel = Policy['level']
export type PolicySubject = Schemas['PolicySubject']
export type EffectiveCell = Schemas['EffectiveCell']
export type EffectiveMatrix = Schemas['EffectiveMatrix']
export type SourcesReport = Schemas['SourcesReport']
export type ReloadReport = Schemas['ReloadReport']
export type SourceReport = Schemas['SourceReport']
export type SourceEntry = Schemas['SourceEntry']
export type ValueInfo = Schemas['ConnectionValue']
export type ConnectionInfo = Schemas['OAuthConnection']
/** A page of a listing: its items and the cursor of the next page. */
export interface Page<T> {
  items: T[]
  nextCursor: string | null
}
