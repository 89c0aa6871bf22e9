// The skill inventory as callers see it: one listing for HTTP, the CLI and the console.
export { listSkills, listSkillsPage, type SkillFilter, type SkillPage, type ListingPosition, type ListedSkill, type InventorySources } from './list-skills.js'
