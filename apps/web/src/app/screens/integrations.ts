// One lazy chunk per screen family: routes.tsx imports these files dynamically.
export { IntegrationPage } from '../../features/integrations/integration-page';
export { IntegrationsPage } from '../../features/integrations/integrations-page';
