import { DndContext, closestCenter, type DragEndEvent } from '@dnd-kit/core';
import { SortableContext, arrayMove, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import DragIcon from '@mui/icons-material/DragIndicator';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, FormHelperText, IconButton, Stack, TextField } from '@mui/material';
import type { View } from '@gantry/contracts';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FormError } from '../../../components/form-error';
import { useSaveViews } from '../api/templates-api';

function ViewRow({ view, onTitle, onRemove }: { view: View; onTitle(title: string): void; onRemove(): void }) {
  const { t } = useTranslation();
  const { attributes, listeners, setNodeRef, transform, transition } = useSortable({ id: view.id });
  return (
    <Stack ref={setNodeRef} direction="row" spacing={1} sx={{ alignItems: 'center', transform: CSS.Transform.toString(transform), transition }} data-testid="view-row">
      <IconButton size="small" aria-label={t('templates.dragView', { name: view.title })} {...attributes} {...listeners} sx={{ cursor: 'grab' }}>
        <DragIcon fontSize="small" />
      </IconButton>
      <TextField size="small" fullWidth value={view.title} onChange={(e) => onTitle(e.target.value)} slotProps={{ htmlInput: { 'aria-label': t('templates.viewTitle') } }} error={!view.title.trim()} />
      <IconButton size="small" aria-label={t('templates.removeView', { name: view.title })} onClick={onRemove}>
        <DeleteIcon fontSize="small" />
      </IconButton>
    </Stack>
  );
}

/** Edit the view tabs: add (temporary negative ids until saved), rename, remove, drag to reorder. */
export function ViewsDialog({ projectId, views: initial, onClose }: { projectId: number; views: View[]; onClose(): void }) {
  const { t } = useTranslation();
  const [views, setViews] = useState<View[]>(initial);
  const [removed, setRemoved] = useState<number[]>([]);
  const nextId = useRef(-1);
  const save = useSaveViews(projectId);
  const valid = views.every((v) => v.title.trim());
  const onDragEnd = (e: DragEndEvent) => {
    if (!e.over || e.active.id === e.over.id) return;
    const from = views.findIndex((v) => v.id === e.active.id);
    const to = views.findIndex((v) => v.id === e.over!.id);
    setViews(arrayMove(views, from, to));
  };
  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth>
      <DialogTitle>{t('templates.editViews')}</DialogTitle>
      <DialogContent>
        <FormError error={save.error} />
        <DndContext collisionDetection={closestCenter} onDragEnd={onDragEnd}>
          <SortableContext items={views.map((v) => v.id)} strategy={verticalListSortingStrategy}>
            <Stack spacing={1} sx={{ pt: 1 }}>
              {views.map((v) => (
                <ViewRow
                  key={v.id}
                  view={v}
                  onTitle={(title) => setViews(views.map((x) => (x.id === v.id ? { ...x, title } : x)))}
                  onRemove={() => {
                    setViews(views.filter((x) => x.id !== v.id));
                    if (v.id > 0) setRemoved([...removed, v.id]);
                  }}
                />
              ))}
            </Stack>
          </SortableContext>
        </DndContext>
        <Button size="small" startIcon={<AddIcon />} sx={{ mt: 1 }} onClick={() => setViews([...views, { id: nextId.current--, project_id: projectId, title: '', position: views.length }])}>
          {t('templates.addView')}
        </Button>
        {/* Why Save is greyed out, said where it can be read (and by screen readers, from Save). */}
        {valid ? null : (
          <FormHelperText error id="views-save-help" data-testid="views-save-help">
            {t('templates.viewTitleRequired')}
          </FormHelperText>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={() => { setViews(initial); setRemoved([]); }}>{t('templates.reset')}</Button>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" disabled={!valid || save.isPending} aria-describedby={valid ? undefined : 'views-save-help'} onClick={() => void save.mutateAsync({ views, removed }).then(onClose, () => undefined)}>
          {t('common.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
