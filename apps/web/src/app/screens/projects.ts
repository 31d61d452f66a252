// One lazy chunk per screen family: routes.tsx imports these files dynamically.
export { NewProjectPage } from '../../features/projects/new-project-page';
