// The dashboard is a chunk of its own (the first page after sign-in); routes.tsx and main.tsx import it.
export { ProjectDashboard } from '../../features/projects/project-dashboard';
