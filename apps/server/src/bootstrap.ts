import type { Config } from './config/config.js';
import { randomToken } from './platform/crypto.js';
import type { Services } from './app.js';

/**
 * Makes sure someone can sign in: the admin named by GANTRY_ADMIN is created or updated, and on
 * a first start with no users at all an `admin` with a random password is created. Returns the
 * generated password (to be printed once) when one was made.
 */
export async function ensureAdmin(services: Services, config: Config): Promise<{ login: string; password: string } | null> {
  const { users } = services;
  if (config.admin) {
    const { login, password, email, name } = config.admin;
    const existing = await users.findByLogin(login);
    if (existing) {
      await users.setAdminFields(existing.id, { admin: true, email: email || undefined, name: name || undefined });
      if (password) await users.resetPassword(existing.id, password);
      return null;
    }
    const generated = password ? null : randomToken(16);
    await users.create({
      username: login,
      name: name || login,
      email: email || `${login}@localhost`,
      password: password ?? generated!,
      admin: true,
      external: false,
      alert: false,
    });
    return generated ? { login, password: generated } : null;
  }
  if ((await users.count()) > 0) return null;
  const generated = randomToken(16);
  await users.create({
    username: 'admin',
    name: 'Administrator',
    email: 'admin@localhost',
    password: generated,
    admin: true,
    external: false,
    alert: false,
  });
  return { login: 'admin', password: generated };
}
