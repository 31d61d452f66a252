import HistoryIcon from '@mui/icons-material/History';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../../components/empty-state';

/** Recent tasks of the project (the task list arrives with templates and tasks). */
export function ProjectHistory() {
  const { t } = useTranslation();
  return <EmptyState icon={<HistoryIcon sx={{ fontSize: 48, mb: 1 }} />} title={t('projects.noTasks')} hint={t('projects.noTasksHint')} />;
}
