import { randomToken } from '../../platform/crypto.js';

/** Length of an alias: 32 characters of [a-z0-9], about 165 random bits, so an address cannot be guessed. */
const ALIAS_LENGTH = 32;

/** A fresh, unguessable alias (also used as a task session's one-time password). */
export function newAliasId(): string {
  return randomToken(ALIAS_LENGTH);
}

/** Whether text could be an alias at all; anything else is answered like an unknown alias. */
export function isAliasId(text: string): boolean {
  return /^[a-z0-9]{16,64}$/.test(text);
}

/** The ID of the lock a task holds for its whole run (shown to whoever finds the state locked). */
export const taskHoldId = (taskId: number): string => `gantry-task-${taskId}`;

/** The login of a task's session (its password is random, for that run only). */
export const taskLogin = (taskId: number): string => `gantry-task-${taskId}`;
