import HowToVoteIcon from '@mui/icons-material/HowToVoteOutlined';
import { Badge, ListItem, ListItemButton, ListItemIcon, ListItemText } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';
import { VisuallyHidden } from '../../../components/visually-hidden';
import { inboxQuery } from '../api/approvals-api';
import { approvalsInboxPath } from '../approval-paths';

/**
 * The sidebar's Approvals entry, with how many approvals wait for the user: one query (the inbox,
 * shared with its page), asked again every 30 s. A failed count shows no badge, never an error.
 */
export function ApprovalsNavItem() {
  const { t } = useTranslation();
  const count = useQuery(inboxQuery).data?.length ?? 0;
  return (
    <ListItem disablePadding>
      <ListItemButton
        component={NavLink}
        to={approvalsInboxPath}
        end
        sx={{ borderRadius: 1, '&.active': { bgcolor: 'action.selected' } }}
        data-testid="nav-approvals"
      >
        <ListItemIcon sx={{ minWidth: 36 }}>
          <Badge
            badgeContent={count}
            color="error"
            max={99}
            aria-hidden="true"
            data-testid="approvals-badge"
            data-count={count}
          >
            <HowToVoteIcon fontSize="small" />
          </Badge>
        </ListItemIcon>
        <ListItemText primary={t('approvals.title')} />
        {count ? <VisuallyHidden>{t('approvals.waitingCount', { n: count })}</VisuallyHidden> : null}
      </ListItemButton>
    </ListItem>
  );
}
