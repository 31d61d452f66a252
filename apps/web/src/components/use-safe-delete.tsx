import { hasReferences, type References } from '@gantry/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../lib/api-client';
import { errorText } from '../lib/error-text';
import { ReferencesDialog } from './references-dialog';
import { useSnackbar } from './snackbar';
import { useConfirmDelete } from './use-confirm-delete';

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
  const qc = useQueryClient();
  const snackbar = useSnackbar();
  const [refs, setRefs] = useState<References | null>(null);
  const confirm = useConfirmDelete<{ id: number; name: string }>({
    object,
    remove: async (item) => {
      await api.delete(`${baseUrl}/${item.id}`);
      await qc.invalidateQueries({ queryKey: invalidate });
    },
    onDeleted,
  });

  const request = async (item: { id: number; name: string }) => {
    try {
      const r = await api.get<References>(`${baseUrl}/${item.id}/refs`);
      if (blocks(r)) setRefs(r);
      else confirm.request(item);
    } catch (e) {
      snackbar.error(errorText(e));
    }
  };
  const dialogs = (
    <>
      {confirm.dialog}
      {refs ? <ReferencesDialog projectId={projectId} object={object} refs={refs} onClose={() => setRefs(null)} /> : null}
    </>
  );
  return { request, dialogs };
}
