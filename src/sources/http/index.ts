// HTTP skills from the config and OpenAPI documents: requests built from input, under egress rules.
export { HttpSource, type OpenApiReport, type HttpSkillsReport } from './http-source.js'
