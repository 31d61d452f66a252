import fs from 'node:fs';
import path from 'node:path';

const STATE_ENTRIES = ['terraform.tfstate', 'terraform.tfstate.backup', 'terraform.tfstate.d'];

/**
 * Local-backend state outlives the run's workspace: it is copied into the working directory
 * before a run and back into `<data>/terraform/template_<id>` after it, so the next run sees
 * what the last one applied.
 */
export class TerraformStateStore {
  constructor(private readonly root: string) {}

  private dir(templateId: number): string {
    return path.join(this.root, `template_${templateId}`);
  }

  restore(templateId: number, workDir: string): void {
    const from = this.dir(templateId);
    if (!fs.existsSync(from)) return;
    for (const e of STATE_ENTRIES) {
      const src = path.join(from, e);
      if (fs.existsSync(src)) fs.cpSync(src, path.join(workDir, e), { recursive: true });
    }
  }

  /**
   * What the default workspace's state holds: resource addresses and output names only. Values
   * are never returned: state files carry secrets.
   */
  summary(templateId: number): { serial: number; terraform_version: string; resources: string[]; outputs: string[] } | null {
    const file = path.join(this.dir(templateId), 'terraform.tfstate');
    if (!fs.existsSync(file)) return null;
    try {
      const state = JSON.parse(fs.readFileSync(file, 'utf8')) as {
        serial?: number;
        terraform_version?: string;
        resources?: Array<{ mode?: string; type?: string; name?: string }>;
        outputs?: Record<string, unknown>;
      };
      return {
        serial: state.serial ?? 0,
        terraform_version: state.terraform_version ?? '',
        resources: (state.resources ?? []).map((r) => `${r.mode === 'data' ? 'data.' : ''}${r.type}.${r.name}`),
        outputs: Object.keys(state.outputs ?? {}),
      };
    } catch {
      return null;
    }
  }

  save(templateId: number, workDir: string): void {
    const to = this.dir(templateId);
    const present = STATE_ENTRIES.filter((e) => fs.existsSync(path.join(workDir, e)));
    if (present.length === 0) return;
    fs.mkdirSync(to, { recursive: true, mode: 0o700 });
    for (const e of present) {
      fs.rmSync(path.join(to, e), { recursive: true, force: true });
      fs.cpSync(path.join(workDir, e), path.join(to, e), { recursive: true });
    }
  }
}
