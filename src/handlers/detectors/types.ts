// The contract every built-in detector implements: options checked once at the edge, then a
// pure, synchronous function from one piece of text to what it found in it (with the span,
// so a hook can redact exactly that).

import type { z } from 'zod'

/** One thing a detector found in a piece of text. */
export interface Finding {
  /** What was found, e.g. `aws-access-key`, `email`, `rm-recursive-root`. */
  kind: string
  /** Where it starts in the text (UTF-16 index). */
  start: number
  /** Where it ends (exclusive). */
  end: number
  /**
   * A short description safe to show in a reason (never the matched secret itself), e.g.
   * the host of a URL or the path a command deletes.
   */
  detail?: string
  /** True when the matched text is sensitive and must be masked in the audit trail. */
  sensitive?: boolean
}

/** Which strings of an event's payload a detector looks at by default. */
export type ScanTarget =
  /** Every string value of the payload (tool input, output, message text, ...). */
  | 'all'
  /** Shell commands: values of keys such as `command`, `cmd`, `script`. */
  | 'commands'
  /** File paths: values of keys such as `path`, `file_path`, and the words of shell commands. */
  | 'paths'

/** A detector as registered: its name, its options schema and how it scans. */
export interface Detector<Options = unknown> {
  name: string
  /** One line for docs and listings. */
  summary: string
  /** Checks the `options` of a hook; unknown keys are refused. */
  options: z.ZodType<Options>
  target: ScanTarget
  /** Whether `action: redact` makes sense (it replaces the spans found). */
  redacts: boolean
  /**
   * Prepares the scanner once per hook. The scanner never throws on any string; `key` is
   * the name of the field the text came from (e.g. `command`, `file_path`); `context` says
   * where the event happened and the bounds of the scan.
   */
  prepare(options: Options): (text: string, key?: string, context?: ScanContext) => Finding[]
}

/** What a scan knows of the event around the text, and its bounds. */
export interface ScanContext {
  /** The folder relative paths are read against (the event's or the tool's `cwd`). */
  cwd?: string
  /** The most characters one string may have (default {@link DEFAULT_MAX_SCAN_CHARS}). */
  maxChars?: number
  /** Work units the scan may spend (default: linear in the length of the text). */
  budget?: number
}

/**
 * The kind of a finding that says a detector reached one of its bounds (size, work budget,
 * nesting) or could not read its input: the text was not fully read, so it is not passed.
 */
export const SCAN_LIMIT_KIND = 'scan-limit'

/** The largest single string a detector scans (longer ones are a finding of their own). */
export const DEFAULT_MAX_SCAN_CHARS = 1_000_000
