import { describe, expect, it } from 'vitest';
import { ensureAdmin } from './bootstrap.js';
import { engines, useTestApp } from './test/harness.js';

describe.each(engines)('first admin ($name)', (engine) => {
  const t = useTestApp(engine);

  it('creates `admin` with a random password on a first start, once', async () => {
    const ctx = t();
    const created = await ensureAdmin(ctx.app.services, ctx.config);
    expect(created?.login).toBe('admin');
    expect(created!.password).toMatch(/^[a-z0-9]{16}$/);
    const login = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: 'admin', password: created!.password } });
    expect(login.statusCode).toBe(204);
    expect(await ensureAdmin(ctx.app.services, ctx.config)).toBeNull();
    expect(await ctx.app.services.users.count()).toBe(1);
  });

  it('creates or updates the GANTRY_ADMIN user at start', async () => {
    const ctx = t();
    const config = { ...ctx.config, admin: { login: 'boss', password: 'first-pw', email: 'boss@example.com', name: 'Boss' } };
    expect(await ensureAdmin(ctx.app.services, config)).toBeNull();
    const boss = await ctx.app.services.users.findByLogin('boss');
    expect(boss).toMatchObject({ admin: 1, email: 'boss@example.com', name: 'Boss' });
    await ensureAdmin(ctx.app.services, { ...config, admin: { ...config.admin, password: 'second-pw', name: 'Big Boss' } });
    const login = (password: string) => ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { auth: 'boss', password } });
    expect((await login('second-pw')).statusCode).toBe(204);
    expect((await login('first-pw')).statusCode).toBe(401);
    expect((await ctx.app.services.users.findByLogin('boss'))?.name).toBe('Big Boss');
  });
});
