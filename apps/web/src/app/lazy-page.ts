import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { isStaleBuildError, reloadForNewBuild } from '../lib/stale-build';

/** The component exported as `K` by module `M`, typed by its props. */
type Export<M, K extends keyof M> = M[K] extends ComponentType<infer P> ? ComponentType<P> : never;

/**
 * A named export of a lazily imported module as a component: screens stay named exports, and
 * pages of one family share the module (and so the chunk) they are imported from. A chunk that
 * is gone (the server was upgraded under this page) reloads the page into the new build, keeping
 * the address; the spinner stays meanwhile.
 */
export function lazyPage<M, K extends keyof M>(load: () => Promise<M>, key: K): LazyExoticComponent<Export<M, K>> {
  return lazy(async () => {
    try {
      return { default: (await load())[key] as Export<M, K> };
    } catch (e) {
      if (isStaleBuildError(e) && reloadForNewBuild()) return new Promise<never>(() => undefined);
      throw e;
    }
  });
}
