import { z } from 'zod'

/**
 * A systemd unit name (systemd.unit(5)): letters, digits and : - _ . \ with @ for template
 * instances, at most 255 characters. No leading - or ., so it can never be read as an option.
 */
export const unitName = z
  .string()
  .max(255)
  .regex(/^[A-Za-z0-9:_@\\][A-Za-z0-9:_.@\\-]*$/, 'must be a systemd unit name such as nginx.service or getty@tty1.service')
  .describe('The systemd unit, e.g. nginx.service (".service" may be left out).')
