import { hasReferences, type References } from '@gantry/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../lib/api-client';
import { errorText } from '../lib/error-text';
import { ConfirmDialog } from './confirm-dialog';
import { ReferencesDialog } from './references-dialog';
import { useSnackbar } from './snackbar';

/**
 * Delete with care: first ask what still uses the item (GET {item}/refs); if anything does, show
 * the references dialog and offer no delete; otherwise ask for confirmation, then DELETE.
 */
export function useSafeDelete({
  projectId,
  object,
  baseUrl,
  invalidate,
  onDeleted,
  blocks = hasReferences,
}: {
  projectId: number;
  object: string;
  baseUrl: string;
  invalidate: readonly unknown[];
  onDeleted?(item: { id: number; name: string }): void;
  /** Which references stop the delete (default: any). */
  blocks?(refs: References): boolean;
}) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const snackbar = useSnackbar();
  const [target, setTarget] = useState<{ id: number; name: string } | null>(null);
  const [refs, setRefs] = useState<References | null>(null);
  const [busy, setBusy] = useState(false);

  const request = async (item: { id: number; name: string }) => {
    try {
      const r = await api.get<References>(`${baseUrl}/${item.id}/refs`);
      if (blocks(r)) setRefs(r);
      else setTarget(item);
    } catch (e) {
      snackbar.error(errorText(e));
    }
  };
  const confirm = async () => {
    if (!target) return;
    setBusy(true);
    try {
      await api.delete(`${baseUrl}/${target.id}`);
      await qc.invalidateQueries({ queryKey: invalidate });
      onDeleted?.(target);
    } catch (e) {
      snackbar.error(errorText(e));
    } finally {
      setBusy(false);
      setTarget(null);
    }
  };
  const dialogs = (
    <>
      <ConfirmDialog
        open={!!target}
        title={t('common.confirmDeleteTitle', { object })}
        text={t('common.confirmDeleteText', { name: target?.name ?? '' })}
        busy={busy}
        onConfirm={() => void confirm()}
        onClose={() => setTarget(null)}
      />
      {refs ? <ReferencesDialog projectId={projectId} object={object} refs={refs} onClose={() => setRefs(null)} /> : null}
    </>
  );
  return { request, dialogs };
}
