// Types of file-ops.mjs for the server's TypeScript.
export function makeWorkspace(root: string, dirs: string[], owner: { uid: number; gid: number } | null): void;
export function copyTree(src: string, dst: string): number;
export function removeSmallTree(dir: string, max: number): boolean;
export function handOver(dir: string, uid: number, gid: number): void;
