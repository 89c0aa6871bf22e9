export { closestMatch, didYouMean, unknownField } from './closest-match.js'
