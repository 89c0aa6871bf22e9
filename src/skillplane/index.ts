export { createSkillplane, type Skillplane, type SkillplaneOptions } from './create-skillplane.js'
