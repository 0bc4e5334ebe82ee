// The PII detector: e-mail addresses, phone numbers (international `+` form and North
// American / UK written forms), payment card numbers (known issuer prefixes, Luhn checksum),
// US social security numbers (valid areas and groups), UK national insurance numbers (valid
// prefixes) and IBANs (per-country length and the mod-97 checksum). Checksums and validity
// rules keep look-alikes such as order numbers, dates and version strings out.

import { z } from 'zod'
import { bounded, type WorkBudget } from './budget.js'
import type { Detector, Finding, ScanContext } from './types.js'

/** The kinds of PII the detector knows. */
export const PII_KINDS = ['email', 'phone', 'card', 'us-ssn', 'uk-nino', 'iban'] as const

/** One of {@link PII_KINDS}. */
export type PiiKind = (typeof PII_KINDS)[number]

const optionsSchema = z
  .object({
    kinds: z
      .array(z.enum(PII_KINDS, { error: `must name kinds among ${PII_KINDS.join(', ')}` }))
      .min(1, 'must name at least one kind')
      .optional(),
  })
  .strict()

/** Options of the PII detector. */
export type PiiOptions = z.infer<typeof optionsSchema>

/** True when the digits pass the Luhn checksum. */
export function luhnValid(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}

const IBAN_LENGTHS: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SC: 31,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
}

/** True when `iban` (no spaces, upper case) has its country's length and passes mod 97. */
export function ibanValid(iban: string): boolean {
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false
  const moved = iban.slice(4) + iban.slice(0, 4)
  let rest = 0
  for (const c of moved) {
    const code = c.charCodeAt(0)
    const value = code >= 65 ? code - 55 : code - 48
    rest = value >= 10 ? (rest * 100 + value) % 97 : (rest * 10 + value) % 97
  }
  return rest === 1
}

const CARD_PREFIX =
  /^(?:4|5[1-5]|2(?:2[2-9]|[3-6]|7[01]|720)|3[47]|3(?:0[0-5]|[68])|6(?:011|5|4[4-9]|22)|35(?:2[89]|[3-8])|62|81)/

const EMAIL_LOCAL = /[A-Za-z0-9._%+'-]/
const EMAIL_DOMAIN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}/
const CARD = /(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])/g
const PHONE =
  /(?<![\w+-])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4}|0\d{2,4}[ -]\d{3,4}[ -]?\d{3,4})(?![\w-]|\.\d)/g
const SSN = /(?<![\d-])(\d{3})-(\d{2})-(\d{4})(?![\d-])/g
const NINO = /\b([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/gi
const NINO_BAD_PREFIX = new Set(['BG', 'GB', 'NK', 'KN', 'TN', 'NT', 'ZZ'])

function emails(
  text: string,
  budget: WorkBudget,
  add: (kind: PiiKind, start: number, end: number) => void,
): void {
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at
    while (start > 0 && at - start < 64 && EMAIL_LOCAL.test(text[start - 1] as string)) start--
    if (!budget.charge(at - start + 8)) return
    if (start === at || text[start] === '.') continue
    const domain = EMAIL_DOMAIN.exec(text.slice(at + 1, at + 255))
    if (!domain) continue
    budget.charge(domain[0].length)
    // `git@github.com:org/repo.git` is an scp-style address, not an e-mail address.
    if (text[at + 1 + domain[0].length] === ':' && /[A-Za-z~/]/.test(text[at + 2 + domain[0].length] ?? ''))
      continue
    add('email', start, at + 1 + domain[0].length)
  }
}

function each(re: RegExp, text: string, budget: WorkBudget, fn: (m: RegExpExecArray) => void): void {
  re.lastIndex = 0
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (!budget.charge(m[0].length + 16)) return
    fn(m)
  }
}

/** Most findings one string may yield; past it the scan stops with a `scan-limit` finding. */
const MAX_FINDINGS = 1000

/** Every piece of PII in `text`. */
export function scanPii(text: string, options: PiiOptions = {}, context?: ScanContext): Finding[] {
  return preparePii(options)(text, undefined, context)
}

function preparePii(options: PiiOptions): (text: string, key?: string, context?: ScanContext) => Finding[] {
  const kinds = new Set<PiiKind>(options.kinds ?? PII_KINDS)
  return bounded('pii', (text, budget) => {
    const findings: Finding[] = []
    const add = (kind: PiiKind, start: number, end: number) => {
      budget.charge(findings.length)
      if (findings.length >= MAX_FINDINGS) {
        budget.charge(budget.limit + 1)
        return
      }
      if (findings.some((f) => start < f.end && end > f.start)) return
      findings.push({ kind, start, end, sensitive: true })
    }
    let digits = 0
    for (let i = 0; i < text.length && digits < 13; i++) {
      const c = text.charCodeAt(i)
      if (c >= 48 && c <= 57) digits++
    }
    if (kinds.has('email') && text.includes('@')) emails(text, budget, add)
    const hasDigits = digits >= 8
    if (hasDigits && kinds.has('iban'))
      each(IBAN, text, budget, (m) => {
        if (ibanValid(m[0].replace(/ /g, '').toUpperCase())) add('iban', m.index, m.index + m[0].length)
      })
    if (digits >= 13 && kinds.has('card'))
      each(CARD, text, budget, (m) => {
        const digits = m[0].replace(/[ -]/g, '')
        if (digits.length >= 13 && CARD_PREFIX.test(digits) && luhnValid(digits))
          add('card', m.index, m.index + m[0].length)
      })
    if (hasDigits && kinds.has('us-ssn') && text.includes('-'))
      each(SSN, text, budget, (m) => {
        const [, area, group, serial] = m as unknown as [string, string, string, string]
        if (area === '000' || area === '666' || area[0] === '9' || group === '00' || serial === '0000') return
        add('us-ssn', m.index, m.index + m[0].length)
      })
    if (digits >= 6 && kinds.has('uk-nino'))
      each(NINO, text, budget, (m) => {
        if (!NINO_BAD_PREFIX.has(m[1] as string)) add('uk-nino', m.index, m.index + m[0].length)
      })
    if (hasDigits && kinds.has('phone'))
      each(PHONE, text, budget, (m) => {
        const digits = m[0].replace(/\D/g, '').length
        if (digits >= 8 && digits <= 15) add('phone', m.index, m.index + m[0].length)
      })
    return findings.sort((a, b) => a.start - b.start)
  })
}

/** The `pii` detector. */
export const piiDetector: Detector<PiiOptions> = {
  name: 'pii',
  summary: 'e-mail addresses, phone numbers, card numbers (Luhn), US SSNs, UK NINOs, IBANs (mod 97)',
  options: optionsSchema,
  target: 'all',
  redacts: true,
  prepare: preparePii,
}
