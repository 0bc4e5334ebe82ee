// The prompt-injection detector: heuristics for text that tries to steer the model from
// inside a tool's output or a retrieved document — overriding earlier instructions, fake
// system/chat-template markers, role hijacks, secrecy toward the user, requests for the
// system prompt or for credentials to be sent away, and lines addressed to "the AI". Text
// is read through its disguises first: invisible and bidi characters are dropped, Unicode
// tag characters (ASCII smuggling) are decoded, full-width and common Cyrillic look-alike
// letters are folded to ASCII. Spans map back to the original text so they can be redacted.

import { RE2JS } from 're2js'
import { z } from 'zod'
import type { Detector, Finding } from './types.js'

const W = String.raw`\s+`
const RULES: { kind: string; re: RegExp }[] = [
  {
    kind: 'override-instructions',
    re: new RegExp(
      String.raw`\b(?:ignore|disregard|forget|override|bypass|skip|do not follow|stop following)${W}(?:(?:all|any|the|your|of|every|my|these|those)${W}){0,3}(?:previous|prior|above|earlier|preceding|former|original|system|existing|initial|old|developer)${W}(?:instructions?|prompts?|rules|directions?|guidelines|context|messages?|commands?|constraints|directives?)`,
      'g',
    ),
  },
  {
    kind: 'fake-system-marker',
    re: /<\|im_start\|>|<\|system\|>|<\|endoftext\|>|\[\/?inst\]|<<\/?sys>>|<\/?system>|\[system\]|\b(?:new|updated|real|actual|revised|hidden)\s+(?:system\s+)?instructions?\s*:|\bsystem\s+(?:prompt|message|override|instructions?)\s*:|(?:^|\n)\s*#{1,6}\s*(?:system|new instructions?)\b/g,
  },
  {
    kind: 'role-hijack',
    re: /\byou\s+are\s+now\s+(?:a|an|the|in|dan|no\s+longer|free|unrestricted|jailbroken)\b|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|should)\b|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|jailbroken|evil|dan)\b|\b(?:developer|god|dan)\s+mode\s+(?:enabled|activated|on)\b/g,
  },
  {
    kind: 'secrecy',
    re: /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to|show|alert|notify|let)\s+(?:this\s+to\s+)?(?:the\s+)?(?:user|human|operator)\b|\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+(?:the\s+)?(?:user|human|operator)\b/g,
  },
  {
    kind: 'prompt-leak',
    re: /\b(?:reveal|print|output|repeat|show|leak|display|dump|disclose)\s+(?:me\s+)?(?:your|the)\s+(?:full\s+|entire\s+|hidden\s+|original\s+|secret\s+)?(?:system\s+prompt|instructions|initial\s+prompt|hidden\s+prompt|developer\s+message)/g,
  },
  {
    kind: 'exfiltration',
    re: /\b(?:send|post|upload|forward|exfiltrate|transmit|email|leak)\s+(?:(?:all|the|your|any|every|these|its)\s+){0,2}(?:[a-z]+\s+){0,2}(?:api\s+keys?|secrets?|credentials?|passwords?|tokens?|env(?:ironment)?\s+variables?|\.env(?:\s+file)?|ssh\s+keys?|private\s+keys?|conversation|chat\s+history|cookies)\s+(?:to|at|via)\b/g,
  },
  {
    kind: 'addressed-to-ai',
    re: /\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:ai|assistant|agent|llm|language\s+model|model|bot)s?\b|\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|assistant|agent|bot)\b|\b(?:ai|assistant|agent|llm)s?\s*(?:reading\s+this\s*)?(?:,|:)?\s*(?:you\s+)?(?:must|should|need\s+to|are\s+(?:instructed|required)\s+to)\s+(?:now\s+|immediately\s+)?(?:ignore|run|execute|call|delete|send|open|visit|fetch|download|install)\b/g,
  },
]

/** The rules of the prompt-injection detector. */
export const INJECTION_RULES = [...RULES.map((r) => r.kind), 'hidden-text'] as const

const optionsSchema = z
  .object({
    disable: z.array(z.string().min(1)).optional(),
    phrases: z
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
      )
      .max(64)
      .optional(),
  })
  .strict()

/** Options of the prompt-injection detector. */
export type InjectionOptions = z.infer<typeof optionsSchema>

const INVISIBLE = /[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/
const LOOKALIKE: Record<string, string> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  х: 'x',
  і: 'i',
  у: 'y',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ո: 'n',
  ν: 'v',
  ο: 'o',
  ι: 'i',
}

/** The text as the model would read it, with where each character came from. */
function fold(text: string): { folded: string; from: number[] | undefined; hidden: boolean } {
  if (!/[^\x00-\x7f]/.test(text)) return { folded: text.toLowerCase(), from: undefined, hidden: false }
  let folded = ''
  const from: number[] = []
  let hidden = false
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i) as number
    const width = code > 0xffff ? 2 : 1
    let out: string
    if (code >= 0xe0000 && code <= 0xe007f) {
      hidden = true
      out = code >= 0xe0020 && code <= 0xe007e ? String.fromCharCode(code - 0xe0000) : ''
    } else if (INVISIBLE.test(String.fromCodePoint(code))) {
      hidden = true
      out = ''
    } else if (code < 0x80) out = String.fromCharCode(code)
    else {
      const c = String.fromCodePoint(code).toLowerCase()
      out = LOOKALIKE[c] ?? c.normalize('NFKC')
    }
    out = out.toLowerCase()
    for (let k = 0; k < out.length; k++) {
      folded += out[k]
      from.push(i)
    }
    i += width - 1
  }
  from.push(text.length)
  return { folded, from, hidden }
}

function prepareInjection(options: InjectionOptions): (text: string) => Finding[] {
  const off = new Set(options.disable ?? [])
  const rules = RULES.filter((r) => !off.has(r.kind))
  const phrases = (options.phrases ?? []).map((p) => RE2JS.compile(p, RE2JS.CASE_INSENSITIVE))
  return (text) => {
    const { folded, from, hidden } = fold(text)
    const at = (i: number) => (from ? (from[i] ?? text.length) : i)
    const findings: Finding[] = []
    for (const rule of rules) {
      rule.re.lastIndex = 0
      for (let m = rule.re.exec(folded); m !== null; m = rule.re.exec(folded)) {
        findings.push({
          kind: rule.kind,
          start: at(m.index),
          end: at(m.index + m[0].length),
          detail: rule.kind,
        })
        if (m[0].length === 0) rule.re.lastIndex++
      }
    }
    for (const re of phrases) {
      const matcher = re.matcher(folded)
      while (matcher.find())
        if (matcher.end() > matcher.start())
          findings.push({
            kind: 'phrase',
            start: at(matcher.start()),
            end: at(matcher.end()),
            detail: 'phrase',
          })
    }
    if (hidden && !off.has('hidden-text') && findings.length > 0)
      findings.push({ kind: 'hidden-text', start: 0, end: text.length, detail: 'hidden-text' })
    return findings.sort((a, b) => a.start - b.start)
  }
}

/** Prompt-injection attempts in `text`. */
export function scanInjection(text: string, options: InjectionOptions = {}): Finding[] {
  return prepareInjection(options)(text)
}

/** The `injection` detector. */
export const injectionDetector: Detector<InjectionOptions> = {
  name: 'injection',
  summary: 'prompt-injection attempts in tool output and retrieved text',
  options: optionsSchema,
  target: 'all',
  redacts: true,
  prepare: prepareInjection,
}
