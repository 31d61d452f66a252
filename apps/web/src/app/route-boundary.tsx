import { Component, Suspense, type ReactNode } from 'react';
import { RouteFallback } from '../components/route-fallback';
import { ErrorView } from './error-view';

interface Props {
  children: ReactNode;
  /** Spinner over the whole page (before the shell exists) rather than in the content area. */
  fullPage?: boolean;
  /** A failed load is forgotten when this changes (the user went to another page). */
  resetKey?: string;
}

/**
 * Suspense for lazily loaded screens, plus the error view when a screen's code fails to load.
 * An old tab asking for chunks a newer release replaced reloads into that release instead (the
 * error view does it, once), keeping the address.
 */
export function RouteBoundary({ children, fullPage = false, resetKey = '' }: Props) {
  return (
    <LoadErrorBoundary resetKey={resetKey}>
      <Suspense fallback={<RouteFallback fullPage={fullPage} />}>{children}</Suspense>
    </LoadErrorBoundary>
  );
}

interface BoundaryState {
  error: unknown;
  resetKey: string;
}

class LoadErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, BoundaryState> {
  override state: BoundaryState = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<BoundaryState> {
    return { error };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: BoundaryState): Partial<BoundaryState> | null {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  override render() {
    return this.state.error ? <ErrorView error={this.state.error} /> : this.props.children;
  }
}
