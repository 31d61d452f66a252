import { useEffect } from 'react';
import { Outlet, useParams } from 'react-router';
import { ManagedByCodeNote } from '../features/projects/components/managed-by-code-note';
import { useProjects } from '../lib/session';
import { storage, StorageKeys } from '../lib/storage';
import { NotFound } from './not-found';

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
      <ManagedByCodeNote projectId={project.id} />
      <Outlet />
    </>
  );
}
