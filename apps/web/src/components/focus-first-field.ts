// Text inputs, text areas and selects a person can type in; MUI's hidden helpers are aria-hidden.
const FIELD = [
  'input:not([type="hidden"]):not([type="checkbox"]):not([type="radio"]):not([disabled]):not([readonly]):not([aria-hidden="true"])',
  'textarea:not([disabled]):not([readonly]):not([aria-hidden="true"])',
  '[role="combobox"]:not([aria-disabled="true"])',
].join(', ');

/**
 * The `ref` of a dialog's form: when the form appears, the cursor goes to its first field, so a
 * dialog opens ready to type (Enter then submits the form, Esc closes the dialog). A field that
 * took focus itself (`autoFocus`) keeps it.
 */
export function focusFirstField(form: HTMLElement | null): void {
  if (!form || form.contains(document.activeElement)) return;
  form.querySelector<HTMLElement>(FIELD)?.focus();
}
