import { chmodSync, statSync } from 'node:fs';

/** A path as a shell argument, for the commands the messages suggest. */
function shellArg(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * Why the data directory must not be used, or undefined: one that another user owns, or that the group or everyone
 * may write to, lets someone else change the records, templates and outputs (or swap the lock and the admin token).
 * Skipped where there are no POSIX owners and modes (Windows: no process.getuid; its folders are guarded by ACLs).
 */
export function dataDirPermissionProblem(dataDir: string): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const stat = statSync(dataDir);
  const dir = shellArg(dataDir);
  if (stat.uid !== uid) {
    return `The data directory ${dataDir} belongs to another user (uid ${stat.uid}, not ${uid}), who could change its records. Run Docwright as that user (sudo -u '#${stat.uid}' …), or choose a directory of your own with --data-dir, or take it over: chown -R ${uid} ${dir} && chmod 700 ${dir}`;
  }
  if ((stat.mode & 0o022) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
    return `The data directory ${dataDir} can be written by ${stat.mode & 0o002 ? 'every user' : 'its group'} (mode ${mode}), who could change its records. Make it yours alone: chmod 700 ${dir}`;
  }
  return undefined;
}

/** Makes a data directory this process has just created private (0700), whatever the umask. */
export function makePrivate(dataDir: string): void {
  if (process.getuid?.() !== undefined) chmodSync(dataDir, 0o700);
}
