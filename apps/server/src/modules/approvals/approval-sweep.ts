/** How often each node looks for approvals past their deadline. */
export const APPROVAL_SWEEP_MS = 15_000;

/**
 * Decides pending approvals whose deadline passed, by their `on_timeout`. Every node runs it; the
 * database decides which node wins each approval (a conditional UPDATE), so a cluster times each
 * one out once and a restart loses nothing (the deadline is a column, not a timer).
 */
export class ApprovalSweep {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly approvals: { sweep(): Promise<number> },
    private readonly intervalMs = APPROVAL_SWEEP_MS,
  ) {}

  start(onError: (e: unknown) => void): void {
    this.stop();
    this.timer = setInterval(() => void this.approvals.sweep().catch(onError), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
