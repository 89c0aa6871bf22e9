export { closestMatch, didYouMean, unknownField } from './closest-match.js'
export { unknownFields } from './unknown-fields.js'
