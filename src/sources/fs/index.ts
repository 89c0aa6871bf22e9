export { isInside } from './is-inside.js'
export { hasOtherLinks } from './has-other-links.js'
