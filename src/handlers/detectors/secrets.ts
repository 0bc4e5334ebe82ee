// The secrets detector: credentials in the documented formats of major providers (AWS, GCP,
// Azure, GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, npm, PyPI, Hugging Face, …),
// private key blocks, JWTs, passwords in connection strings and `secret = "…"` assignments,
// plus high-entropy tokens. Every built-in pattern is linear (no nested quantifiers) and
// runs only when its literal hint occurs; patterns users add are RE2 (re2js).

import { RE2JS } from 're2js'
import { z } from 'zod'
import { bounded, type WorkBudget } from './budget.js'
import { decodeText, encodesText, isCursorValue, publicSpans } from './secrets-public.js'
import { foldInvisible, originalIndex } from './text-fold.js'
import type { Detector, Finding, ScanContext } from './types.js'

interface Pattern {
  kind: string
  /** Literal substrings one of which must occur for the pattern to run. */
  hints: readonly string[]
  re: RegExp
  /** The capture group holding the secret (default: the whole match). */
  group?: number
  /** An extra check of the secret. */
  accept?: (secret: string) => boolean
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0
  const counts = new Map<number, number>()
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    counts.set(c, (counts.get(c) ?? 0) + 1)
  }
  let bits = 0
  for (const count of counts.values()) {
    const p = count / text.length
    bits -= p * Math.log2(p)
  }
  return bits
}

function classes(text: string): number {
  return (/[a-z]/.test(text) ? 1 : 0) + (/[A-Z]/.test(text) ? 1 : 0) + (/[0-9]/.test(text) ? 1 : 0)
}

const PLACEHOLDER =
  /^(?:x{3,}|\*{3,}|\.{3,}|<[^>]*>|\{\{.*\}\}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Z_]+%|changeme|change_me|password|secret|redacted|null|none|undefined|true|false|example\w*|your[_-]?\w*|my[_-]?\w*|dummy\w*|placeholder\w*|test\w{0,4}|\[redacted[^\]]*\])$/i

/** True for a value that looks like a real secret rather than a placeholder or code. */
function plausible(value: string): boolean {
  if (value.length < 8 || PLACEHOLDER.test(value)) return false
  if (/[()[\]{}]|^(?:process\.env|os\.environ|env\.|getenv|self\.|this\.)/i.test(value)) return false
  return classes(value) >= 2 && shannonEntropy(value) >= 2.8
}

const PATTERNS: Pattern[] = [
  {
    kind: 'aws-access-key-id',
    hints: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'],
    re: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\b/g,
  },
  {
    kind: 'aws-secret-access-key',
    hints: ['ecret', 'ECRET'],
    re: /(?:aws|AWS)[A-Za-z_]{0,20}(?:secret|SECRET)[A-Za-z_]{0,20}["']?\s{0,5}[:=]{1,2}>?\s{0,5}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/g,
    group: 1,
  },
  { kind: 'gcp-api-key', hints: ['AIza'], re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: 'gcp-oauth-client-secret', hints: ['GOCSPX-'], re: /\bGOCSPX-[0-9A-Za-z_-]{28}/g },
  { kind: 'gcp-access-token', hints: ['ya29.'], re: /\bya29\.[0-9A-Za-z_-]{30,}/g },
  { kind: 'azure-storage-key', hints: ['AccountKey='], re: /AccountKey=([A-Za-z0-9+/]{86}==)/g, group: 1 },
  {
    kind: 'azure-client-secret',
    hints: ['Q~'],
    re: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
  },
  {
    kind: 'azure-sas-signature',
    hints: ['sig='],
    re: /[?&]sig=([A-Za-z0-9%+/]{40,120}(?:%3D|=){0,2})/gi,
    group: 1,
  },
  {
    kind: 'github-token',
    hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    re: /\bgh[pousr]_[A-Za-z0-9]{36,251}\b/g,
  },
  { kind: 'github-fine-grained-token', hints: ['github_pat_'], re: /\bgithub_pat_[A-Za-z0-9_]{60,255}/g },
  {
    kind: 'gitlab-token',
    hints: [
      'glpat-',
      'gldt-',
      'glptt-',
      'glrt-',
      'glsoat-',
      'glcbt-',
      'glft-',
      'glimt-',
      'glagent-',
      'gloas-',
      'GR1348941',
    ],
    re: /\b(?:gl(?:pat|dt|ptt|rt|soat|cbt|ft|imt|agent|oas)-[A-Za-z0-9_.-]{20,}|GR1348941[A-Za-z0-9_-]{20,})/g,
  },
  { kind: 'slack-token', hints: ['xox'], re: /\bxox[abposer]-(?:[0-9]{1,20}-){0,3}[A-Za-z0-9-]{10,250}/g },
  {
    kind: 'slack-webhook',
    hints: ['hooks.slack.com'],
    re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/g,
  },
  {
    kind: 'stripe-key',
    hints: ['k_live_', 'k_test_', 'whsec_'],
    re: /\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247}|whsec_[A-Za-z0-9+/=]{24,})/g,
  },
  { kind: 'anthropic-key', hints: ['sk-ant-'], re: /\bsk-ant-[a-z]{3,6}[0-9]{2}-[A-Za-z0-9_-]{32,200}/g },
  {
    kind: 'openai-key',
    hints: ['sk-'],
    re: /\bsk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])/g,
    accept: (key) => !key.startsWith('sk-ant-') && classes(key.slice(3)) === 3,
  },
  {
    kind: 'private-key',
    hints: ['PRIVATE KEY'],
    re: /-----BEGIN[A-Z ]{0,30}PRIVATE KEY(?: BLOCK)?-----[^-]{0,20000}(?:-----END[A-Z ]{0,30}PRIVATE KEY(?: BLOCK)?-----)?/g,
  },
  { kind: 'jwt', hints: ['eyJ'], re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'npm-token', hints: ['npm_'], re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'pypi-token', hints: ['pypi-'], re: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g },
  {
    kind: 'huggingface-token',
    hints: ['hf_'],
    re: /\bhf_[A-Za-z]{34}\b/g,
    accept: (t) => classes(t.slice(3)) >= 2,
  },
  { kind: 'sendgrid-key', hints: ['SG.'], re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { kind: 'twilio-key', hints: ['SK'], re: /\bSK[0-9a-f]{32}\b/g },
  { kind: 'mailgun-key', hints: ['key-'], re: /\bkey-[0-9a-f]{32}\b/g },
  {
    kind: 'shopify-token',
    hints: ['shpat_', 'shpss_', 'shpca_', 'shppa_'],
    re: /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/g,
  },
  {
    kind: 'digitalocean-token',
    hints: ['dop_v1_', 'doo_v1_', 'dor_v1_'],
    re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g,
  },
  { kind: 'databricks-token', hints: ['dapi'], re: /\bdapi[a-f0-9]{32}(?:-\d)?\b/g },
  { kind: 'telegram-bot-token', hints: [':AA'], re: /\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}(?![0-9A-Za-z_-])/g },
  {
    kind: 'url-password',
    hints: ['://'],
    re: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]{1,100}:([^\s@/]{3,200})@/gi,
    group: 1,
    accept: (p) => !PLACEHOLDER.test(p) && !/^(?:x-oauth-basic|\*+|pass(?:word)?)$/i.test(p),
  },
  {
    kind: 'bearer-token',
    hints: ['earer '],
    re: /\b[Bb]earer\s{1,5}([A-Za-z0-9._~+/-]{20,}=*)/g,
    group: 1,
    accept: (t) => classes(t) >= 2 && shannonEntropy(t) >= 3.5,
  },
  {
    kind: 'basic-auth',
    hints: ['asic '],
    re: /\b[Bb]asic\s{1,5}([A-Za-z0-9+/]{8,300}={0,2})(?![A-Za-z0-9+/=])/g,
    group: 1,
    accept: (t) => encodesText(t) && decodeText(t).includes(':'),
  },
  {
    kind: 'secret-assignment',
    hints: [],
    re: /(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|passwd|pwd|access[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_-]{0,20}["']?\s{0,5}(?::|=|:=|=>)\s{0,5}["']?([^\s"'`,;]{8,256})/gi,
    group: 1,
    accept: plausible,
  },
]

const ASSIGNMENT_HINT = /api[_-]?key|apikey|secret|token|passw|pwd|access[_-]?key|credential/i
const CANDIDATE = /[A-Za-z0-9+/_=-]{20,}/g

const optionsSchema = z
  .object({
    entropy: z
      .union([
        z.boolean(),
        z
          .object({
            minLength: z.number().int().min(12).max(256).optional(),
            threshold: z.number().min(1).max(8).optional(),
          })
          .strict(),
      ])
      .optional(),
    disable: z.array(z.string().min(1), { error: 'must be a list of secret kinds to switch off' }).optional(),
    patterns: z
      .array(
        z.string().superRefine((pattern, ctx) => {
          try {
            RE2JS.compile(pattern)
          } catch (error) {
            ctx.addIssue({
              code: 'custom',
              message: `is not a valid RE2 expression: ${(error as Error).message}`,
            })
          }
        }),
        { error: 'must be a list of RE2 regular expressions' },
      )
      .max(64)
      .optional(),
  })
  .strict()

/** Options of the secrets detector. */
export type SecretsOptions = z.infer<typeof optionsSchema>

/** The kinds of secret the built-in patterns name. */
export const SECRET_KINDS = [...PATTERNS.map((p) => p.kind), 'high-entropy', 'encoded-secret', 'custom']

function entropyCheck(options: SecretsOptions): ((token: string) => boolean) | undefined {
  if (options.entropy === false) return undefined
  const settings = typeof options.entropy === 'object' ? options.entropy : {}
  const minLength = settings.minLength ?? 20
  return (token) => {
    if (token.length < minLength || token.length > 512 || classes(token) < 3) return false
    if ((token.match(/\//g)?.length ?? 0) > 2) return false
    const threshold = settings.threshold ?? Math.min(4.5, 0.8 * Math.log2(token.length))
    return shannonEntropy(token) >= threshold
  }
}

/** Every secret in `text`. */
export function scanSecrets(text: string, options: SecretsOptions = {}, context?: ScanContext): Finding[] {
  return prepareSecrets(options)(text, undefined, context)
}

/** Most findings one string may yield; past it the scan stops with a `scan-limit` finding. */
const MAX_FINDINGS = 1000

function prepareSecrets(
  options: SecretsOptions,
): (text: string, key?: string, context?: ScanContext) => Finding[] {
  const off = new Set(options.disable ?? [])
  const patterns = PATTERNS.filter((p) => !off.has(p.kind))
  const custom = (options.patterns ?? []).map((p) => RE2JS.compile(p))
  const entropy = off.has('high-entropy') ? undefined : entropyCheck(options)
  /** Provider patterns over `text`, reporting each secret's span in it. */
  const matchPatterns = (
    text: string,
    budget: WorkBudget,
    add: (kind: string, s: number, e: number) => void,
  ) => {
    for (const pattern of patterns) {
      if (
        pattern.hints.length > 0 ? !pattern.hints.some((h) => text.includes(h)) : !ASSIGNMENT_HINT.test(text)
      )
        continue
      pattern.re.lastIndex = 0
      for (let m = pattern.re.exec(text); m !== null; m = pattern.re.exec(text)) {
        if (!budget.charge(m[0].length + 32)) return
        const secret = pattern.group ? m[pattern.group] : m[0]
        if (secret === undefined || (pattern.accept && !pattern.accept(secret))) continue
        const start = m.index + m[0].lastIndexOf(secret)
        // `next_page_token: …` names a pagination cursor, not a credential.
        if (pattern.kind === 'secret-assignment' && isCursorValue(text, start)) continue
        add(pattern.kind, start, start + secret.length)
      }
    }
  }
  return bounded('secrets', (original, budget) => {
    // Read through zero-width and other invisible characters; spans map back to the original.
    const folded = foldInvisible(original)
    const text = folded.text
    const at = (i: number) => originalIndex(folded, i, original.length)
    const findings: Finding[] = []
    const add = (kind: string, start: number, end: number) => {
      const from = at(start)
      const to = at(end)
      budget.charge(findings.length)
      if (findings.length >= MAX_FINDINGS) {
        budget.charge(budget.limit + 1)
        return
      }
      if (findings.some((f) => from < f.end && to > f.start)) return
      findings.push({ kind, start: from, end: to, sensitive: true })
    }
    budget.charge(text.length)
    matchPatterns(text, budget, add)
    for (const re of custom) {
      const matcher = re.matcher(text)
      while (!budget.exhausted && matcher.find()) {
        budget.charge(matcher.end() - matcher.start() + 32)
        if (matcher.end() > matcher.start()) add('custom', matcher.start(), matcher.end())
      }
    }
    if (entropy && !budget.exhausted) {
      const open = publicSpans(text)
      CANDIDATE.lastIndex = 0
      for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
        if (!budget.charge(m[0].length + 16)) break
        // `cursor=eyJ…` in a query string: the value is the token, after its name.
        const named = /^[A-Za-z_][A-Za-z0-9_.-]{0,40}=(?=[^=])/.exec(m[0])
        const at = m.index + (named ? named[0].length : 0)
        const token = m[0].slice(named ? named[0].length : 0).replace(/^[-_=]+|[-_]+$/g, '')
        if (!entropy(token)) continue
        if (text.slice(Math.max(0, at - 7), at) === 'base64,') continue
        const start = at + m[0].slice(at - m.index).indexOf(token)
        const end = start + token.length
        if (open.some(([s, e]) => start >= s && end <= e) || isCursorValue(text, start)) continue
        // Base64 of text is an encoded structure (a cursor, an id) unless it encodes a key.
        if (encodesText(token)) {
          let inner = false
          matchPatterns(decodeText(token), budget, () => {
            inner = true
          })
          if (inner) add('encoded-secret', start, end)
          continue
        }
        add('high-entropy', start, end)
      }
    }
    return findings.sort((a, b) => a.start - b.start)
  })
}

/** The `secrets` detector. */
export const secretsDetector: Detector<SecretsOptions> = {
  name: 'secrets',
  summary: 'API keys and tokens of major providers, private keys, JWTs, passwords, high-entropy tokens',
  options: optionsSchema,
  target: 'all',
  redacts: true,
  prepare: prepareSecrets,
}
