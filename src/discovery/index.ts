// Skill discovery: one index of every skill, ranked for a request by words, usage, relations and meaning.
export { Discovery, DISCOVER_KEY, type DiscoverOptions, type DiscoveredSkill, type DiscoveryAnswer, type DiscoveryOptions } from './discovery.js'
export { discoverSkillsSkill } from './discover-skills-skill.js'
export { createEmbedder, type Embedder, type EmbeddingSettings } from './embedder.js'
export { largeCatalog, type CatalogSettings, type DiscoveryMode, type LargeCatalog } from './large-catalog.js'
export { foundKeys } from './found-keys.js'
export { tokenize, processTerm } from './tokenize.js'
export { DEFAULT_RANKING, rankingWith, type RankingParameters, type RankingFields, type RankingOverrides } from './ranking.js'
