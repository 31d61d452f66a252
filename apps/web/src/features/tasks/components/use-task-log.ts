import { LOG_FLUSH_MS } from '@gantry/contracts';
import { useEffect, useRef, useState } from 'react';
import { realtime } from '../../../lib/realtime';
import { taskOutput } from '../api/tasks-api';

/**
 * The log of a task: the stored lines plus the live ones from the socket, merged by sequence
 * number and put on screen every 500 ms. Lines sent before the dialog listened but stored only
 * after it loaded leave a gap in the numbers; a gap makes it load the stored log again.
 */
export function useTaskLog(projectId: number, taskId: number): string[] {
  const byseq = useRef(new Map<number, string>());
  const [lines, setLines] = useState<string[]>([]);
  useEffect(() => {
    const lines = new Map<number, string>();
    byseq.current = lines;
    let pending: Array<{ seq?: number; output: string }> = [];
    let extra = 1e12;
    let dirty = false;
    let loading = false;
    let lastLoad = 0;
    const load = () => {
      if (loading) return;
      loading = true;
      lastLoad = Date.now();
      void taskOutput(projectId, taskId)
        .then((rows) => {
          for (const r of rows) lines.set(r.seq, r.output);
          dirty = true;
        }, () => undefined)
        .finally(() => {
          loading = false;
        });
    };
    const hasGap = () => {
      let expected = 1;
      for (const seq of [...lines.keys()].filter((s) => s < 1e12).sort((a, b) => a - b)) {
        if (seq !== expected) return true;
        expected += 1;
      }
      return false;
    };
    const off = realtime.subscribe((m) => {
      if (m.type === 'log' && m.task_id === taskId) pending.push({ seq: m.seq, output: m.output });
    });
    load();
    const timer = setInterval(() => {
      for (const p of pending) lines.set(p.seq ?? extra++, p.output);
      if (pending.length) dirty = true;
      pending = [];
      if (dirty && hasGap() && Date.now() - lastLoad > LOG_FLUSH_MS) load();
      if (!dirty) return;
      dirty = false;
      setLines([...lines.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]));
    }, LOG_FLUSH_MS);
    return () => {
      off();
      clearInterval(timer);
    };
  }, [projectId, taskId]);
  return lines;
}
