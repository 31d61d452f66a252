// One lazy chunk per screen family: routes.tsx imports these files dynamically.
export { GlobalNotificationsPage } from '../../features/notifications/global-notifications-page';
export { NotificationsPage } from '../../features/notifications/notifications-page';
