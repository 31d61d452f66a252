import type { OptionsSource } from '@gantry/contracts';

/**
 * Where a choice parameter's options come from (static values, inventory hosts or groups, another
 * parameter, a URL). STUB (to be replaced by the dynamic-options work): renders nothing.
 */
export function OptionsSourceEditor(_props: {
  value: OptionsSource | null | undefined;
  onChange(value: OptionsSource | null): void;
  /** Names of the template's other parameters (for a cascading source). */
  otherParameters: string[];
}) {
  return null;
}
