/** POST `body` as JSON to skillplane's HTTP API at `base` with the API key `key`: the answer's JSON (an envelope, or a route's own shape). */
export async function postAs<T = { ok: boolean; data?: unknown; error?: { code: string; message: string } }>(
  base: string,
  key: string,
  path: string,
  body: unknown,
): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return (await response.json()) as T
}
