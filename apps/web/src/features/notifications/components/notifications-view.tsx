import { Box, Tab, Tabs } from '@mui/material';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { NotificationScope } from '../api/notifications-api';
import { DeliveryLog } from './delivery-log';
import { DestinationsSection } from './destinations-section';
import { RulesSection } from './rules-section';

const TABS = ['destinations', 'rules', 'log'] as const;
type NotificationsTab = (typeof TABS)[number];

/**
 * Destinations, rules and the delivery log as tabs; the tab is in the address (`?tab=`) so that
 * it can be linked to and survives a reload.
 */
export function NotificationsView({ scope, canManage }: { scope: NotificationScope; canManage: boolean }) {
  const { t } = useTranslation();
  const id = useId();
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab: NotificationsTab = TABS.find((x) => x === asked) ?? 'destinations';
  const label = {
    destinations: 'notifications.destinations',
    rules: 'notifications.rules',
    log: 'notifications.deliveryLog',
  } as const;
  return (
    <Box>
      <Tabs
        value={tab}
        onChange={(_, v: NotificationsTab) => setParams(v === 'destinations' ? {} : { tab: v }, { replace: true })}
        variant="scrollable"
        allowScrollButtonsMobile
        aria-label={t('notifications.title')}
        sx={{ mb: 2, borderBottom: 1, borderColor: 'divider' }}
      >
        {TABS.map((x) => (
          <Tab key={x} value={x} label={t(label[x])} id={`${id}-${x}`} aria-controls={`${id}-panel`} />
        ))}
      </Tabs>
      <Box role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-${tab}`}>
        {tab === 'destinations' ? <DestinationsSection scope={scope} canManage={canManage} /> : null}
        {tab === 'rules' ? <RulesSection scope={scope} canManage={canManage} /> : null}
        {tab === 'log' ? <DeliveryLog scope={scope} /> : null}
      </Box>
    </Box>
  );
}
