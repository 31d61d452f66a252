import DashboardIcon from '@mui/icons-material/SpaceDashboardOutlined';
import TemplatesIcon from '@mui/icons-material/PlaylistPlay';
import ScheduleIcon from '@mui/icons-material/ScheduleOutlined';
import InventoryIcon from '@mui/icons-material/DnsOutlined';
import HostsIcon from '@mui/icons-material/ComputerOutlined';
import KeyIcon from '@mui/icons-material/VpnKeyOutlined';
import RepositoryIcon from '@mui/icons-material/AccountTreeOutlined';
import TeamIcon from '@mui/icons-material/GroupsOutlined';
import VariablesIcon from '@mui/icons-material/DataObjectOutlined';
import IntegrationIcon from '@mui/icons-material/WebhookOutlined';
import WorkflowIcon from '@mui/icons-material/LanOutlined';
import NotificationsIcon from '@mui/icons-material/NotificationsOutlined';
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

export const PROJECT_LINKS: ProjectLink[] = [
  {
    key: 'dashboard',
    labelKey: 'shell.dashboard',
    icon: DashboardIcon,
    section: 'history',
    requiresNormalProject: false,
  },
  {
    key: 'templates',
    labelKey: 'templates.title',
    icon: TemplatesIcon,
    section: 'templates',
    requiresNormalProject: true,
  },
  {
    key: 'schedules',
    labelKey: 'schedules.title',
    icon: ScheduleIcon,
    section: 'schedules',
    requiresNormalProject: true,
  },
  {
    key: 'workflows',
    labelKey: 'workflows.title',
    icon: WorkflowIcon,
    section: 'workflows',
    requiresNormalProject: true,
  },
  {
    key: 'inventory',
    labelKey: 'inventories.title',
    icon: InventoryIcon,
    section: 'inventory',
    requiresNormalProject: true,
  },
  { key: 'hosts', labelKey: 'hosts.title', icon: HostsIcon, section: 'hosts', requiresNormalProject: true },
  {
    key: 'environment',
    labelKey: 'environments.title',
    icon: VariablesIcon,
    section: 'environment',
    requiresNormalProject: true,
  },
  { key: 'keys', labelKey: 'keys.title', icon: KeyIcon, section: 'keys', requiresNormalProject: true },
  {
    key: 'repositories',
    labelKey: 'repositories.title',
    icon: RepositoryIcon,
    section: 'repositories',
    requiresNormalProject: true,
  },
  {
    key: 'integrations',
    labelKey: 'integrations.title',
    icon: IntegrationIcon,
    section: 'integrations',
    requiresNormalProject: true,
  },
  {
    key: 'notifications',
    labelKey: 'notifications.title',
    icon: NotificationsIcon,
    section: 'notifications',
    requiresNormalProject: true,
  },
  { key: 'team', labelKey: 'team.title', icon: TeamIcon, section: 'team', requiresNormalProject: false },
];
