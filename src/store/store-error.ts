/** The database can't be opened, reached or migrated. */
export class StoreError extends Error {
  override name = 'StoreError'
}
