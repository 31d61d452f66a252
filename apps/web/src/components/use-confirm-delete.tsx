import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../lib/error-text';
import { ConfirmDialog } from './confirm-dialog';
import { useSnackbar } from './snackbar';

/**
 * Yes/no confirmation, then `remove`. For things nothing can reference (a matcher, an alias);
 * `useSafeDelete` adds the references check in front. A failure shows the server's message in
 * the snackbar.
 */
export function useConfirmDelete<T extends { id: number; name: string }>({
  object,
  remove,
  onDeleted,
}: {
  object: string;
  remove(item: T): Promise<unknown>;
  onDeleted?(item: T): void;
}) {
  const { t } = useTranslation();
  const snackbar = useSnackbar();
  const [target, setTarget] = useState<T | null>(null);
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    if (!target) return;
    setBusy(true);
    try {
      await remove(target);
      onDeleted?.(target);
    } catch (e) {
      snackbar.error(errorText(e));
    } finally {
      setBusy(false);
      setTarget(null);
    }
  };
  const dialog = (
    <ConfirmDialog
      open={!!target}
      title={t('common.confirmDeleteTitle', { object })}
      text={t('common.confirmDeleteText', { name: target?.name ?? '' })}
      busy={busy}
      onConfirm={() => void confirm()}
      onClose={() => setTarget(null)}
    />
  );
  return { request: setTarget, dialog };
}
