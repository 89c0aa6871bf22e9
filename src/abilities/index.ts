// Who may do what, as one table: the roles and their order, and every ability with the lowest role that holds it.
// It reads nothing but skill/'s types, so every layer above may ask it.
export { ROLES, isRole, roleAtLeast, highestRole, lowerRole } from './roles.js'
export {
  ABILITIES,
  ABILITY_NAMES,
  type Ability,
  can,
  abilitiesOf,
  missingAbility,
  mayRunClass,
  mayViewApproval,
  mayDecideApproval,
  mayAnswerRunInput,
  mayRevokeGrant,
  maySeeAgent,
  mayExportAgent,
  seesEverySkill,
} from './abilities.js'
