import { EmptyState } from '../components/empty-state';

export function NotFound() {
  return <EmptyState title="404" />;
}
