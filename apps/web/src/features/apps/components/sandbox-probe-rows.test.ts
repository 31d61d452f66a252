import type { SandboxProbe, SandboxStatus } from '@gantry/contracts';
import i18n from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import de from '../../../locales/de.json';
import en from '../../../locales/en.json';
import { probeRows } from './sandbox-probe-rows';

beforeAll(async () => {
  await i18n.init({
    resources: { en: { translation: en }, de: { translation: de } },
    lng: 'en',
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
  });
});

const measured: SandboxProbe = {
  uid: 65534,
  user: 'nobody',
  capabilities: '0000000000000000',
  bounding: '0000000000000000',
  network: 'isolated',
  error: null,
};
const status = (over: Partial<SandboxStatus> = {}, probe: Partial<SandboxProbe> = {}): SandboxStatus => ({
  mode: 'bwrap',
  requested: 'auto',
  detail: 'bubblewrap 0.11.0 (/usr/bin/bwrap)',
  network_requested: 'isolated',
  server_uid: 1000,
  probe: { ...measured, ...probe },
  ...over,
});
const rows = (s: SandboxStatus) => probeRows(s, i18n.t).map(({ severity, text }) => `${severity}: ${text}`);

describe('the rows under the sandbox alert', () => {
  it('say what a well-confined task gets', () => {
    expect(rows(status())).toEqual([
      'success: Tasks run as: nobody (uid 65534)',
      'success: Capabilities: none',
      "success: Network: own network namespace, outside hosts reachable, this host's loopback not",
    ]);
  });

  it('add, for a root server, that tasks run as another user without capabilities', () => {
    expect(rows(status({ server_uid: 0 }))).toContain(
      'info: The server runs as root; tasks run as nobody without any capability',
    );
    expect(rows(status({ server_uid: 0 }, { user: null }))).toEqual([
      'success: Tasks run as: uid 65534',
      'success: Capabilities: none',
      "success: Network: own network namespace, outside hosts reachable, this host's loopback not",
      'info: The server runs as root; tasks run as uid 65534 without any capability',
    ]);
  });

  it('flag root tasks, capabilities and a shared network', () => {
    expect(
      rows(
        status(
          { mode: 'off', server_uid: 0 },
          { uid: 0, user: 'root', capabilities: '000001ffffffffff', network: 'host' },
        ),
      ),
    ).toEqual([
      'error: Tasks run as root',
      'error: Tasks run as: root (uid 0)',
      'warning: Capabilities: 000001ffffffffff',
      "warning: Network: the server's network (tasks are not sandboxed): tasks reach this host's loopback services",
    ]);
    expect(rows(status({ network_requested: 'host' }, { network: 'host' }))).toContain(
      "warning: Network: the server's network (GANTRY_TASK_NETWORK=host): tasks reach this host's loopback services",
    );
    expect(rows(status({}, { network: 'loopback-only' }))).toContain(
      'warning: Network: own network namespace without a way out (install slirp4netns)',
    );
  });

  it('show why the probe could not run, and nothing without a probe', () => {
    const failed = {
      uid: null,
      user: null,
      capabilities: null,
      bounding: null,
      network: null,
      error: 'the probe exited with 1',
    };
    expect(rows(status({ server_uid: 0 }, failed))).toEqual([
      'error: The probe could not run: the probe exited with 1',
    ]);
    expect(rows(status({ probe: undefined }))).toEqual([]);
  });

  it('are worded in the chosen language', async () => {
    await i18n.changeLanguage('de');
    try {
      expect(rows(status())[1]).toBe('success: Berechtigungen (Capabilities): keine');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
