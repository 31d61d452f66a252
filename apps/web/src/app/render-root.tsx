import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';

/**
 * The first render, as a transition: React then renders in slices of a few milliseconds and lets
 * the browser handle input between them, instead of one long task for the whole first page.
 */
export function renderRoot(element: HTMLElement): void {
  const root = createRoot(element);
  startTransition(() =>
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );
}
