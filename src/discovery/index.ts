// Skill discovery: one index of every skill, ranked for a request by words, usage, relations and meaning.
export { Discovery, DISCOVER_KEY, type DiscoverOptions, type DiscoveredSkill, type DiscoveryAnswer, type DiscoveryOptions } from './discovery.js'
export { discoverSkillsSkill } from './discover-skills-skill.js'
export { createEmbedder, type Embedder, type EmbeddingSettings } from './embedder.js'
export { listedTools } from './listed-tools.js'
