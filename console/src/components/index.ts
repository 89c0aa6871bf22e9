export { Chip, ClassChip, StatusChip } from './chips'
export { JsonView } from './json-view'
export { ErrorNote } from './error-note'
export { Time } from './time'
