import { lazy, Suspense, useEffect } from 'react';
import { Outlet, useParams } from 'react-router';
import { useProjects } from '../lib/session';
import { storage, StorageKeys } from '../lib/storage';
import { NotFound } from './not-found';

// Lazy: the note's access hook and Alert would otherwise join the sign-in route's bundle (its budget).
const ManagedByCodeNote = lazy(() =>
  import('../features/projects/components/managed-by-code-note').then((m) => ({ default: m.ManagedByCodeNote })),
);

/**
 * A project's pages: remembers it as the current project; unknown ids show Incorrect URL. A project
 * managed by code says so above every page.
 */
export function ProjectRoute() {
  const { projectId } = useParams();
  const id = Number(projectId);
  const project = useProjects().find((p) => p.id === id);
  useEffect(() => {
    if (project) storage.set(StorageKeys.projectId, String(project.id));
  }, [project]);
  if (!project) return <NotFound />;
  return (
    <>
      {project.managed_by_code ? (
        <Suspense fallback={null}>
          <ManagedByCodeNote projectId={project.id} />
        </Suspense>
      ) : null}
      <Outlet />
    </>
  );
}
