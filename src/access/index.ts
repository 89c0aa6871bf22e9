// Who may see and call what: every surface asks here, and the pipeline re-checks per call.
export { authorize, type AuthorizeInput } from './authorize.js'
export { canSee, mayActivate, type BindingView } from './can-see.js'
export { suggestKey } from './suggest-key.js'
export { isSharedWith } from './shared-with.js'
export { runAccessRefusal } from './run-access.js'
export { callableSkills, callAccess, toSkillInput, approvalText, pendingApproval, type CallableSkill, type AccessView } from './callable-skills.js'
export { effectivePolicy, type EffectivePolicy } from './effective-policy.js'
export { policySubject, policySubjects, selfSubject, type PolicySubject, type SubjectSources } from './policy-subject.js'
