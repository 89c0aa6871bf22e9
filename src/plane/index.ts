export { createSkillplane, type Skillplane, type SkillplaneOptions } from './skillplane.js'
