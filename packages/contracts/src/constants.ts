/** Limits and timings fixed by the product specification; both sides read them from here. */
export const PAGE_SIZE = 20;
export const SNACKBAR_TIMEOUT_MS = 3000;
export const WS_RECONNECT_MS = 2000;
/** WebSocket close code: the socket's session or token is no longer valid (sign in again). */
export const WS_CLOSE_SIGNED_OUT = 4401;
/** WebSocket close code: the client did not read its messages fast enough. */
export const WS_CLOSE_TOO_SLOW = 4000;
export const LOG_FLUSH_MS = 500;
export const LOG_ROW_HEIGHT = 22;
export const TASKS_REFRESH_MS = 10_000;
export const SIDEBAR_WIDTH = 260;
export const MOBILE_BREAKPOINT = 960;
export const TASK_DIALOG_MAX_WIDTH = 1000;
export const VERIFICATION_CODE_LENGTH = 6;
export const DEBUG_LEVEL_MIN = 1;
export const DEBUG_LEVEL_MAX = 6;
export const DEBUG_LEVEL_DEFAULT = 4;
/** Project switcher colours, assigned in this order and cycled. */
export const PROJECT_COLORS = ['red', 'blue', 'orange', 'green'] as const;
/** The header a browser form cannot send; the console adds it to every state-changing call. */
export const CSRF_HEADER = 'x-gantry-request';
export const SESSION_COOKIE = 'gantry_session';
