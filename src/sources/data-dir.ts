// Files that hooks write, confined. A hook loaded from an operator's file (an agent.json
// profile) writes inside its own folder; a hook that came through the management API
// writes inside the operator's data folder (`management.dataDir`), in a folder of its
// tenant, and never names an absolute path, a `..` segment or a folder of its own.
// Symbolic links are not followed out of the folder: each folder on the way is checked
// before it is created, the parent's real path must stay inside, and the file itself is
// opened with O_NOFOLLOW.

import { constants } from 'node:fs'
import { lstat, mkdir, open, realpath } from 'node:fs/promises'
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path'

/** Where a hook source that arrived over the management API is recorded (`database:user`, ...). */
export const API_SOURCE_PREFIX = 'database:'

/** True when a hook came through the management API (stored, or an unsaved dry run). */
export function isApiSource(source: string | undefined): boolean {
  return source?.startsWith(API_SOURCE_PREFIX) === true
}

/**
 * Checks a relative file path a hook names: not empty, not absolute, no `..` segment, no
 * NUL, at most 512 characters. Returns the problem, or undefined when it is fine.
 */
export function relativePathProblem(field: string, path: string): string | undefined {
  if (path.trim() === '') return `${field} must not be empty`
  if (path.length > 512) return `${field} must be at most 512 characters`
  if (path.includes('\0')) return `${field} must not contain NUL`
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\')) {
    return `${field} "${path}" must be a relative path inside the data folder, not an absolute one`
  }
  if (path.split(/[\\/]+/).some((segment) => segment === '..')) {
    return `${field} "${path}" must not contain ".." segments`
  }
  return undefined
}

/** The folder of one tenant's files inside the data folder ("" or undefined = global hooks). */
export function tenantDataDir(dataDir: string, tenant: string | undefined): string {
  return tenant ? join(dataDir, `tenant-${encodeURIComponent(tenant)}`) : join(dataDir, 'global')
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)
}

/**
 * Creates the folders between `base` (created if missing, mode 0700) and `target`'s parent,
 * one at a time, refusing a symbolic link or anything that is not a folder on the way.
 * @returns the real path of `target`'s parent, checked to be inside `base`.
 * @throws Error naming the path when it leaves `base`.
 */
export async function confinedParent(base: string, path: string): Promise<string> {
  await mkdir(base, { recursive: true, mode: 0o700 })
  const realBase = await realpath(base)
  const target = resolve(realBase, path)
  const rel = relative(realBase, target)
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new Error(`"${path}" leaves the folder it must stay in`)
  }
  const segments = rel.split(sep).slice(0, -1)
  let at = realBase
  for (const segment of segments) {
    at = join(at, segment)
    const found = await lstat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    })
    if (found?.isSymbolicLink()) throw new Error(`"${path}" goes through a symbolic link; refused`)
    if (found && !found.isDirectory()) throw new Error(`"${path}": ${segment} is not a folder`)
    if (!found) await mkdir(at, { mode: 0o700 }).catch(ignoreExists)
  }
  const realParent = await realpath(at)
  if (!inside(realBase, realParent)) throw new Error(`"${path}" resolves outside the folder it must stay in`)
  return realParent
}

function ignoreExists(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EEXIST') throw error
}

/**
 * Appends one line to a file inside `base`, never through a symbolic link.
 * @throws Error when the path leaves `base`, goes through a link, or cannot be written.
 */
export async function appendConfined(base: string, path: string, line: string): Promise<void> {
  const parent = await confinedParent(base, path)
  // O_NONBLOCK: a FIFO planted in the folder fails at once instead of holding the hook.
  const handle = await open(
    join(parent, basename(path)),
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    0o600,
  ).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw new Error(`"${path}" is a symbolic link; refused`)
    throw error
  })
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw new Error(`"${path}" is not a regular file; refused`)
    await handle.write(line)
  } finally {
    await handle.close()
  }
}
