/**
 * The source files boot-steps.ts imports, for the build's chunk plan, which puts them in the
 * entry's file (plain data: the build reads this file; a test holds the two together).
 */
export const BOOT_STEP_MODULES = ['src/lib/i18n.ts', 'src/app/color-mode.tsx', 'src/app/routes.tsx', 'src/app/app.tsx', 'src/app/render-root.tsx'];
