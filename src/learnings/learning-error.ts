/** A learning refused: a bad category, title, content, tag or importance. The message names which. */
export class LearningError extends Error {
  override name = 'LearningError'
}
