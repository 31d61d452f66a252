import { QueryClient } from '@tanstack/react-query';
import { projectQueries } from './project-queries';
import { infoQuery, projectsQuery, roleQuery, userQuery } from './session';

/** The page's one query cache: created before the first render so the entry can start the first page's requests. */
export const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 10_000, refetchOnWindowFocus: false, retry: false } },
});

/**
 * Asks for what every signed-in page waits on (the user, the system, the projects and, on a
 * project's page, the role there, and on its dashboard the history) before the page's code is asked for: over HTTP/1.1 a browser
 * opens six connections to a server, and these small answers would otherwise queue behind the
 * dozens of script files the first page loads. A failure stays in the cache for the page to show
 * (a 401 then goes to sign-in as before).
 */
export function prefetchSession(path: string): void {
  void queryClient.prefetchQuery(userQuery);
  void queryClient.prefetchQuery(infoQuery);
  void queryClient.prefetchQuery(projectsQuery);
  const project = /^\/project\/(\d+)(\/|$)/.exec(path);
  if (!project) return;
  const id = Number(project[1]);
  void queryClient.prefetchQuery(roleQuery(id));
  // The dashboard opens on its history.
  if (/^\/project\/\d+(\/history)?\/?$/.test(path)) void queryClient.prefetchQuery(projectQueries.history(id));
}
