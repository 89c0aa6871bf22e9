// The skill inventory as callers see it: one listing for HTTP, the CLI and the console.
export { listSkills, listingFingerprint, type SkillFilter, type InventorySources } from './list-skills.js'
