import { Navigate, useLocation } from 'react-router';
import { paths } from '../lib/paths';
import { useProjects } from '../lib/session';
import { storage, StorageKeys } from '../lib/storage';

/** `/`: the last project visited if it still exists, else the first, else the new-project form. */
export function RootRedirect() {
  const projects = useProjects();
  // The query string (e.g. ?t= for the task dialog) survives the redirect.
  const { search } = useLocation();
  // A notification's approval link (/approvals/{id}?t=<signed token>; a task's ?t= is a number)
  // comes back here from the sign-in page with only its query: on to the link's landing page.
  const token = new URLSearchParams(search).get('t');
  if (token && !/^\d+$/.test(token)) return <Navigate to={`/approvals/link${search}`} replace />;
  const last = Number(storage.get(StorageKeys.projectId));
  const target = projects.find((p) => p.id === last) ?? projects[0];
  return <Navigate to={(target ? paths.history(target.id) : paths.newProject) + search} replace />;
}
