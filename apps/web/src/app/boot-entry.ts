// A second entry of the build (vite.config.ts), never loaded by itself: it makes the modules main.tsx
// imports step by step (boot-steps.ts) part of the entry's file, as if main.tsx imported them.
export * as i18n from '../lib/i18n';
export * as theme from './color-mode';
export * as routes from './routes';
export * as app from './app';
export * as render from './render-root';
