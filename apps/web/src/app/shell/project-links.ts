import DashboardIcon from '@mui/icons-material/SpaceDashboardOutlined';
import type { SvgIconComponent } from '@mui/icons-material';

/**
 * The project's links in the sidebar. Entries with `requiresNormalProject` show only for
 * projects of the normal type (empty string). Each feature adds its entry here.
 */
export interface ProjectLink {
  key: string;
  labelKey: string;
  icon: SvgIconComponent;
  /** Path segment under /project/{id}/ */
  section: string;
  requiresNormalProject: boolean;
}

export const PROJECT_LINKS: ProjectLink[] = [{ key: 'dashboard', labelKey: 'shell.dashboard', icon: DashboardIcon, section: 'history', requiresNormalProject: false }];
