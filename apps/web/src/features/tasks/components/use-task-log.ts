import { LOG_FLUSH_MS } from '@gantry/contracts';
import { useEffect, useRef, useState } from 'react';
import { realtime } from '../../../lib/realtime';
import { taskOutput } from '../api/tasks-api';

/**
 * The log of a task: the stored lines plus the live ones from the socket, merged by sequence
 * number (no duplicates, no gaps), put on screen every 500 ms.
 */
export function useTaskLog(projectId: number, taskId: number): string[] {
  const byseq = useRef(new Map<number, string>());
  const pending = useRef<Array<{ seq?: number; output: string }>>([]);
  const [lines, setLines] = useState<string[]>([]);
  useEffect(() => {
    byseq.current = new Map();
    pending.current = [];
    setLines([]);
    let extra = 1e12;
    const off = realtime.subscribe((m) => {
      if (m.type === 'log' && m.task_id === taskId) pending.current.push({ seq: m.seq, output: m.output });
    });
    let dirty = false;
    void taskOutput(projectId, taskId).then((rows) => {
      for (const r of rows) byseq.current.set(r.seq, r.output);
      dirty = true;
    }, () => undefined);
    const timer = setInterval(() => {
      for (const p of pending.current) byseq.current.set(p.seq ?? extra++, p.output);
      if (pending.current.length) dirty = true;
      pending.current = [];
      if (!dirty) return;
      dirty = false;
      setLines([...byseq.current.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]));
    }, LOG_FLUSH_MS);
    return () => {
      off();
      clearInterval(timer);
    };
  }, [projectId, taskId]);
  return lines;
}
