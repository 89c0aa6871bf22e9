export { PackSource } from './pack-source.js'
export { loadPacks, MANIFEST, type Pack } from './load-packs.js'
export { parsePackManifest, type PackManifest } from './parse-pack-manifest.js'
export { packSkill, MAX_PACK_OUTPUT } from './pack-skill.js'
