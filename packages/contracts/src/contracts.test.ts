import { describe, expect, it } from 'vitest';
import {
  ALL_PERMISSIONS,
  Permission,
  can,
  permissionsFor,
  projectCreateSchema,
  projectInitials,
  userCreateFormSchema,
  userCreateSchema,
} from './index.js';

describe('permissions', () => {
  it('gives each role the bits the product defines', () => {
    expect(permissionsFor('owner', false)).toBe(15);
    expect(permissionsFor('manager', false)).toBe(Permission.runProjectTasks | Permission.manageProjectResources);
    expect(permissionsFor('task_runner', false)).toBe(1);
    expect(permissionsFor('guest', false)).toBe(0);
    expect(permissionsFor(null, false)).toBe(0);
    expect(permissionsFor(null, true)).toBe(ALL_PERMISSIONS);
    expect(permissionsFor('guest', true)).toBe(ALL_PERMISSIONS);
  });

  it('checks a bit', () => {
    expect(can(5, Permission.manageProjectResources)).toBe(true);
    expect(can(5, Permission.updateProject)).toBe(false);
    expect(can(0, Permission.runProjectTasks)).toBe(false);
  });
});

describe('project schema', () => {
  it('sends empty max parallel tasks as 0 and trims the name', () => {
    expect(projectCreateSchema.parse({ name: '  Ops  ', max_parallel_tasks: '' })).toMatchObject({ name: 'Ops', max_parallel_tasks: 0, type: '', demo: false });
    expect(projectCreateSchema.parse({ name: 'a', max_parallel_tasks: '7' }).max_parallel_tasks).toBe(7);
  });

  it.each([
    [{ name: '' }, 'Project name is required'],
    [{ name: 'a', max_parallel_tasks: '-2' }, 'Must be 0 or greater'],
    [{ name: 'a', max_parallel_tasks: '2.5' }, 'Must be an integer'],
    [{ name: 'a', max_parallel_tasks: 'x' }, 'Must be an integer'],
  ])('%o -> %s', (input, message) => {
    const r = projectCreateSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toBe(message);
  });

  it('makes initials from two words or the first two letters', () => {
    expect(projectInitials('web servers')).toBe('WS');
    expect(projectInitials('  Database ')).toBe('DA');
    expect(projectInitials('a b c')).toBe('AB');
    expect(projectInitials('x')).toBe('X');
  });
});

describe('user schema', () => {
  it('requires a password in the console form unless the user is external; the API does not', () => {
    const base = { name: 'N', username: 'n', email: 'n@e.io' };
    expect(userCreateFormSchema.safeParse(base).error!.issues[0]!.message).toBe('Password is required');
    expect(userCreateFormSchema.safeParse({ ...base, external: true }).success).toBe(true);
    expect(userCreateSchema.safeParse(base).success).toBe(true);
    expect(userCreateSchema.safeParse({ ...base, username: 'has space', password: 'p' }).error!.issues[0]!.message).toBe('Username must not contain spaces');
  });
});
