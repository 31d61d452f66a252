import { expect, test, type Page } from '@playwright/test';
import type { AuditExportStatus } from '@gantry/contracts';
import { seriousAxeFindings } from './axe';
import { signIn } from './helpers';
import { shot } from './shots';

// The destinations are server settings (GANTRY_AUDIT_EXPORT_*) this suite's server does not
// have: the panel's answers are given here; the server's side is tested in audit-export.int.test.ts.
const answer = (status: AuditExportStatus) => async (page: Page) =>
  page.route('**/api/audit/export', (route) => route.fulfill({ json: status }));

const destinations: AuditExportStatus['destinations'] = [
  {
    key: 'file:4be1c0ffee',
    kind: 'file',
    target: '/var/log/gantry/audit-export-with-a-rather-long-folder-name/audit.jsonl',
    format: 'jsonl',
    last_exported_id: 1234,
    pending: 0,
    not_exported: 0,
    attempts: 0,
    last_success: '2026-11-26T10:00:00.000Z',
    last_error: null,
    last_error_time: null,
    node: '4be1c0ffee',
  },
  {
    key: 'webhook',
    kind: 'webhook',
    target: 'https://splunk.example.com:8088/services/collector/event',
    format: 'splunk',
    last_exported_id: 1200,
    pending: 34,
    not_exported: 12,
    attempts: 5,
    last_success: '2026-11-26T09:58:00.000Z',
    last_error: 'connect ECONNREFUSED 10.0.0.7:8088',
    last_error_time: '2026-11-26T10:01:00.000Z',
    node: '4be1c0ffee',
  },
];

test('an admin sees each export destination on the Audit page: where it goes, what waits, the last error', async ({
  page,
}) => {
  await answer({ destinations })(page);
  await signIn(page);
  await page.goto('/audit');
  const panel = page.getByRole('region', { name: 'Export to a SIEM' });
  await expect(panel).toBeVisible();
  const file = panel.getByRole('article', { name: 'File (JSON lines)' });
  await expect(file).toContainText('Up to date');
  await expect(file).toContainText('#1234');
  const hook = panel.getByRole('article', { name: 'Webhook' });
  await expect(hook).toContainText('Failing, retrying');
  await expect(hook).toContainText('https://splunk.example.com:8088/services/collector/event');
  await expect(hook).toContainText('connect ECONNREFUSED 10.0.0.7:8088');
  await expect(hook).toContainText('Never sent (skipped)');
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'audit-export');

  // At phone width the panel wraps inside the page.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(hook).toBeVisible();
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shot(page, 'audit-export-phone');
});

test('with no destination set, the panel says how to set one', async ({ page }) => {
  await answer({ destinations: [] })(page);
  await signIn(page);
  await page.goto('/audit');
  const panel = page.getByRole('region', { name: 'Export to a SIEM' });
  await expect(panel).toContainText('GANTRY_AUDIT_EXPORT_WEBHOOK_URL');
  expect(await seriousAxeFindings(page)).toEqual([]);
});
