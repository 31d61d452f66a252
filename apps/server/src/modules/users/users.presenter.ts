import type { CurrentUser, User, UserSummary } from '@gantry/contracts';
import type { UserRow } from './users.repository.js';

/** The API shape of a user; the password hash and the TOTP secret never leave here. */
export function presentUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    username: row.username,
    email: row.email,
    alert: row.alert === 1,
    admin: row.admin === 1,
    external: row.external === 1,
    created: row.created,
    totp: row.totp_id === null ? null : { id: row.totp_id },
  };
}

export function presentCurrentUser(row: UserRow, nonAdminCanCreateProject: boolean): CurrentUser {
  return { ...presentUser(row), can_create_project: row.admin === 1 || nonAdminCanCreateProject };
}

/** What any signed-in user may see of others (team candidates): no email. */
export function presentUserSummary(row: UserRow): UserSummary {
  return { id: row.id, name: row.name, username: row.username };
}
