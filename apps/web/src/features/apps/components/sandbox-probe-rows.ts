import type { SandboxStatus } from '@gantry/contracts';
import type { TFunction } from 'i18next';

/** How a row reads: its icon (named, not only coloured) follows it. */
export type ProbeSeverity = 'success' | 'info' | 'warning' | 'error';
export type ProbeRow = { key: string; severity: ProbeSeverity; text: string };

/** A capability set as /proc shows it (hex): all zeroes means none. */
const noCapabilities = (hex: string) => /^0+$/.test(hex);

/**
 * The rows the Apps page shows under the sandbox alert: what a probe process, started exactly as a
 * task is, measured (user, capabilities, network), each with how worrying it is.
 */
export function probeRows(status: SandboxStatus, t: TFunction): ProbeRow[] {
  const probe = status.probe;
  if (!probe) return [];
  const rows: ProbeRow[] = [];
  if (probe.uid === 0) rows.push({ key: 'root', severity: 'error', text: t('apps.probe.taskRoot') });
  if (probe.uid !== null)
    rows.push({
      key: 'user',
      severity: probe.uid === 0 ? 'error' : 'success',
      text: probe.user
        ? t('apps.probe.user', { user: probe.user, uid: probe.uid })
        : t('apps.probe.userUnnamed', { uid: probe.uid }),
    });
  if (probe.capabilities !== null) {
    const none = noCapabilities(probe.capabilities);
    rows.push({
      key: 'capabilities',
      severity: none ? 'success' : 'warning',
      text: t('apps.probe.capabilities', { value: none ? t('apps.probe.none') : probe.capabilities }),
    });
  }
  if (probe.network !== null) {
    const network = {
      isolated: { severity: 'success', text: t('apps.probe.networkIsolated') },
      'loopback-only': { severity: 'warning', text: t('apps.probe.networkLoopbackOnly') },
      // Shared by choice (GANTRY_TASK_NETWORK=host) or because tasks are not sandboxed at all.
      host: {
        severity: 'warning',
        text: status.network_requested === 'host' ? t('apps.probe.networkHost') : t('apps.probe.networkShared'),
      },
    } as const satisfies Record<NonNullable<typeof probe.network>, Omit<ProbeRow, 'key'>>;
    rows.push({
      key: 'network',
      ...network[probe.network],
      text: t('apps.probe.network', { value: network[probe.network].text }),
    });
  }
  if (status.server_uid === 0 && probe.uid !== null && probe.uid !== 0)
    rows.push({
      key: 'server-root',
      severity: 'info',
      text: t('apps.probe.serverRoot', { user: probe.user ?? t('apps.probe.uid', { uid: probe.uid }) }),
    });
  if (probe.error) rows.push({ key: 'error', severity: 'error', text: t('apps.probe.error', { error: probe.error }) });
  return rows;
}
