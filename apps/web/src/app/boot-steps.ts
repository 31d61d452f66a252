/**
 * The entry's code past what starts the first requests, in the order main.tsx runs it, a task
 * each. Loaded at once, all of it would run as one task of a few hundred milliseconds on a phone
 * (the language, the component library, the router, React's DOM code), during which the page
 * cannot answer a tap; in steps, the browser gets the main thread back between them. These
 * modules are part of the entry's own file (the build's chunk plan puts them there), so a step
 * costs no request.
 */
export const BOOT_STEPS = {
  i18n: () => import('../lib/i18n'),
  theme: () => import('./color-mode'),
  routes: () => import('./routes'),
  app: () => import('./app'),
  render: () => import('./render-root'),
};

/**
 * Creates the page's first `Intl` object, in a task of its own. The first one a page makes starts
 * the browser's ICU data (15–40 ms here, four times that on a phone) wherever it happens; left to
 * the signed-in console's modules (MUI's table paging makes a number format as it loads), it
 * lengthens their task. The sign-in page makes none, so only the console's pages call this.
 */
export function startIntl(): void {
  new Intl.NumberFormat('en-US').format(0);
}

/** Resolves in a new task of the browser's event loop (a timer; microtasks would not yield). */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
