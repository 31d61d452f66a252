// One lazy chunk per screen family: routes.tsx imports these files dynamically.
export { TemplatePage } from '../../features/templates/template-page';
export { TemplatesPage } from '../../features/templates/templates-page';
