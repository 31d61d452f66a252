/**
 * Brings the first field in error inside `root` (in reading order) to the middle of its scroll
 * area and focuses it, so a long form's problem is never off screen. Fields are MUI form controls
 * (their error state is the `Mui-error` class); a message that is not a field, such as the server's
 * alert atop a form, is only scrolled to.
 */
export function focusFirstError(root: HTMLElement | null): void {
  const first = root?.querySelector<HTMLElement>('.Mui-error, [role="alert"]');
  if (!first) return;
  const control = first.closest<HTMLElement>('.MuiFormControl-root') ?? first;
  control.scrollIntoView({ block: 'center' });
  control
    .querySelector<HTMLElement>(
      'input:not([type="hidden"]):not([aria-hidden="true"]), textarea:not([aria-hidden="true"]), [role="combobox"]',
    )
    ?.focus({ preventScroll: true });
}
