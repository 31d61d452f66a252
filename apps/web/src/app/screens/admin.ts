// One lazy chunk per screen family: routes.tsx imports these files dynamically.
export { AppsPage } from '../../features/apps/apps-page';
export { AuditPage } from '../../features/audit/audit-page';
export { ClusterPage } from '../../features/cluster/cluster-page';
export { IdentityMappingsPage } from '../../features/identity/identity-mappings-page';
export { RunnersPage } from '../../features/runners/runners-page';
export { SecurityPage } from '../../features/security/security-page';
export { TokensPage } from '../../features/tokens/tokens-page';
export { UsersPage } from '../../features/users/users-page';
