export { SkillSources, type SkillSourcesOptions } from './skill-sources.js'
