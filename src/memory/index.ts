export { Memory, type SharedMemory, type MemoryDeps } from './memory.js'
export { MemoryError } from './memory-error.js'
export { MEMORY_LIMITS, DEFAULT_POOL, type MemorySizeLimits } from './memory-limits.js'
export { memorySkills, MEMORY_SKILL_KEYS } from './memory-skills.js'
