// One lazy chunk per screen family: routes.tsx imports these files dynamically.
export { EnvironmentsPage } from '../../features/environments/environments-page';
export { InventoriesPage } from '../../features/inventories/inventories-page';
export { KeysPage } from '../../features/keys/keys-page';
export { RepositoriesPage } from '../../features/repositories/repositories-page';
