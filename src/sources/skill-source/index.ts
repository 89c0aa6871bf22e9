export type { SkillSource, SourceReport, SourceEntry, SourcesReport } from './skill-source.js'
