import { defineSkill } from 'skillplane'

/**
 * Who you are at the depot's accounts service: runs with the caller's own OAuth connection
 * (`depot` in the config's oauth.providers), so each person connects once, in their browser.
 */
export function depotAccount(api: string) {
  return defineSkill({
    key: 'depot_whoami',
    title: 'Depot account',
    description: 'Show which depot account the caller is connected as, and with which scopes',
    class: 'safe',
    category: 'depot',
    oauth: { provider: 'depot', scopes: ['issues:read'] },
    async run(_input, ctx) {
      const response = await fetch(`${api}/whoami`, { headers: { authorization: `Bearer ${ctx.secrets.get('depot')}` }, signal: ctx.signal })
      if (!response.ok) throw new Error(`the depot accounts service answered ${response.status}: ${await response.text()}`)
      return (await response.json()) as { sub: string; scope: string }
    },
  })
}
