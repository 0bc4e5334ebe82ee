// The prompt-injection detector: heuristics for text that tries to steer the model from
// inside a tool's output or a retrieved document — overriding earlier instructions, fake
// system/chat-template markers, role hijacks, secrecy toward the user, requests for the
// system prompt or for credentials to be sent away, and lines addressed to "the AI". Text
// is read through its disguises first: invisible and bidi characters are dropped, Unicode
// tag characters (ASCII smuggling) are decoded, full-width and common Cyrillic look-alike
// letters are folded to ASCII. Spans map back to the original text so they can be redacted.

import { RE2JS } from 're2js'
import { z } from 'zod'
import { bounded } from './budget.js'
import type { Detector, Finding, ScanContext } from './types.js'

/** Files whose contents are credentials, as named in an exfiltration ask. */
const SENSITIVE = String.raw`(?<!\S)(?:["'(]?(?:the\s+|your\s+)?(?:ssh|private|api|aws)\s+keys?\b|["'(]?[^\s]{0,80}?(?:\/\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.env\b|\/etc\/(?:passwd|shadow|sudoers)\b|\.aws\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|\.kube\/config\b|\.pem\b)[^\s]{0,60})`
/** Where an exfiltration ask sends things: a URL or a named place outside. */
const DESTINATION = String.raw`(?:https?:\/\/|ftp:\/\/|\/\/|[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,8}\.[a-z]{2,24}\b|(?:an?|the|this|that|my|our|their)\s+(?:(?:remote|external|following|given|below)\s+)?(?:url|endpoint|server|webhook|address|host|site|pastebin|gist|bucket|channel|api))`

const W = String.raw`\s+`
const VERB = String.raw`(?:ignore|disregard|forget(?:\s+about)?|override|bypass|skip|neglect|discard|drop|abandon|set\s+aside|put\s+aside|throw\s+out|pay\s+no\s+attention\s+to|do\s+not\s+(?:follow|obey|heed)|don'?t\s+(?:follow|obey|heed)|stop\s+(?:following|obeying)|no\s+longer\s+(?:follow|obey))`
const WHOSE = `(?:(?:all|any|the|your|of|every|these|those|such)${W}){0,3}`
const WHEN = String.raw`(?:previous|previously\s+given|prior|above|earlier|preceding|former|original|system|existing|initial|old|developer|foregoing|past|preset|given|safety|standing)`
const NOUN = String.raw`(?:instructions?|prompts?|rules|directions?|guidelines?|guidance|context|messages?|commands?|constraints|directives?|orders|programming|training|policies|restrictions|safeguards|guardrails|system\s+prompt)`
/** `the old rules file`: the noun names a thing, not instructions. */
const NOT_A_THING = String.raw`(?!\s+(?:files?|engines?|config(?:uration)?|folders?|director(?:y|ies)|pages?|sections?|tables?|sets?|parsers?|modules?|repo(?:sitory)?)\b)`
const AFTER = String.raw`(?:above|before|earlier|so\s+far|previously|until\s+now|up\s+to\s+now|you\s+(?:were|have\s+been|'ve\s+been|had\s+been)\s+(?:given|told)|given\s+(?:to\s+you|before|earlier|above)|(?:from|by)\s+(?:the\s+)?(?:developer|system|operator))`
const TOLD = String.raw`(?:everything|anything|all|whatever)${W}(?:(?:that${W})?you(?:${W}(?:were|have\s+been|'ve\s+been|had\s+been|got|received))?${W}(?:told|given|taught|instructed|asked|programmed|trained|shown)|(?:above|before\s+this|prior\s+to\s+this|said\s+(?:above|before|earlier)|written\s+above|up\s+to\s+this\s+point))`

const RULES: { kind: string; re: RegExp }[] = [
  {
    kind: 'override-instructions',
    re: new RegExp(
      String.raw`\b${VERB}${W}(?:${WHOSE}${WHEN}${W}${NOUN}${NOT_A_THING}|${WHOSE}${NOUN}${W}${AFTER}|${TOLD})|\b(?:the|your|all|any)${W}(?:${WHEN}${W})?${NOUN}${W}(?:(?:above|before|so\s+far)${W})?(?:are|is|were|have\s+been)${W}(?:now${W})?(?:void|cancell?ed|obsolete|revoked|superseded|overridden|null|invalid|no\s+longer\s+(?:valid|in\s+effect|apply|applicable|relevant))|\byour${W}(?:new|real|actual|true|updated)${W}(?:task|instructions?|objective|goal|purpose|mission|orders)${W}(?:is|are|now)\b`,
      'g',
    ),
  },
  {
    kind: 'fake-system-marker',
    re: /<\|im_start\|>|<\|im_end\|>|<\|system\|>|<\|user\|>|<\|assistant\|>|<\|endoftext\|>|<\|begin_of_text\|>|<\|start_header_id\|>|<\|end_header_id\|>|<\|eot_id\|>|<start_of_turn>|<end_of_turn>|\[\/?inst\]|<<\/?sys>>|<\/?system>|\[system\]|\b(?:new|updated|real|actual|revised|hidden)\s+(?:system\s+)?instructions?\s*:|\bsystem\s+(?:prompt|message|override|instructions?)\s*:|(?:^|\n)\s*#{1,6}\s*(?:system|new instructions?)\b/g,
  },
  {
    kind: 'role-hijack',
    re: /\byou\s+are\s+now\s+(?:a|an|the|in|dan|no\s+longer|free|unrestricted|jailbroken)\b|\byou\s+are\s+no\s+longer\s+(?:bound|restricted|limited|an?\s+(?:ai|assistant))\b|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|should)\b|\b(?:act|pretend|behave)\s+(?:to\s+be\s+|as\s+(?:if\s+you\s+(?:are|were)\s+)?)(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|evil|dan)\b|\b(?:enter|switch\s+to|enable)\s+(?:developer|god|dan|jailbreak)\s+mode\b|\b(?:developer|god|dan)\s+mode\s+(?:enabled|activated|on)\b/g,
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
    re: new RegExp(
      String.raw`\b(?:send|post|upload|forward|exfiltrate|transmit|email|leak)\s+(?:(?:all|the|your|any|every|these|its)\s+){0,2}(?:[a-z]+\s+){0,2}(?:api\s+keys?|secrets?|credentials?|passwords?|tokens?|env(?:ironment)?\s+variables?|\.env(?:\s+file)?|ssh\s+keys?|private\s+keys?|conversation|chat\s+history|cookies)\s+(?:to|at|via)\b|\b(?:send|post|upload|forward|exfiltrate|transmit|e-?mail|leak|copy|pipe|curl|submit|share|paste|put|write|append|attach|sync)\s+(?:the\s+)?(?:(?:full|entire|raw|whole)\s+)?(?:(?:contents?|output|text|body)\s+of\s+)?(?:(?:the|your|my)\s+)?(?:file\s+)?${SENSITIVE}[^\n]{0,60}?\b(?:to|into|onto|at|via)\s+${DESTINATION}|${SENSITIVE}[^\n]{0,100}?\b(?:send|post|upload|forward|exfiltrate|transmit|e-?mail|curl|submit|paste)\b[^\n]{0,40}?\b(?:to|into|onto|at)\s+${DESTINATION}`,
      'g',
    ),
  },
  {
    kind: 'addressed-to-ai',
    re: /\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:ai|assistant|agent|llm|language\s+model|model|bot)s?\b|\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|assistant|agent|bot)\b|\b(?:ai|assistant|agent|llm)s?\s*(?:reading\s+this\s*)?(?:,|:)?\s*(?:you\s+)?(?:must|should|need\s+to|are\s+(?:instructed|required)\s+to)\s+(?:now\s+|immediately\s+)?(?:ignore|run|execute|call|delete|send|open|visit|fetch|download|install)\b/g,
  },
]

/** The legacy Anthropic turn markers: a `Human:` turn, then an `Assistant:` turn, each after a blank line. */
const TURN = /(?:^|\n[ \t]*\n)[ \t]*(human|assistant)[ \t]*:/g

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

function prepareInjection(
  options: InjectionOptions,
): (text: string, key?: string, context?: ScanContext) => Finding[] {
  const off = new Set(options.disable ?? [])
  const rules = RULES.filter((r) => !off.has(r.kind))
  const phrases = (options.phrases ?? []).map((p) => RE2JS.compile(p, RE2JS.CASE_INSENSITIVE))
  const turns = !off.has('fake-system-marker')
  return bounded('injection', (text, budget) => {
    const { folded, from, hidden } = fold(text)
    budget.charge(folded.length * rules.length)
    const at = (i: number) => (from ? (from[i] ?? text.length) : i)
    const findings: Finding[] = []
    const add = (kind: string, start: number, end: number) => {
      if (findings.length < MAX_FINDINGS)
        findings.push({ kind, start: at(start), end: at(end), detail: kind })
      else budget.charge(budget.limit + 1)
    }
    for (const rule of rules) {
      rule.re.lastIndex = 0
      for (let m = rule.re.exec(folded); m !== null; m = rule.re.exec(folded)) {
        if (!budget.charge(m[0].length + 16)) break
        add(rule.kind, m.index, m.index + m[0].length)
        if (m[0].length === 0) rule.re.lastIndex++
      }
    }
    // `\n\nHuman: … \n\nAssistant:` — a fake conversation turn inside the text.
    if (turns && folded.includes('human') && folded.includes('assistant')) {
      let human = -1
      TURN.lastIndex = 0
      for (let m = TURN.exec(folded); m !== null; m = TURN.exec(folded)) {
        if (!budget.charge(m[0].length + 16)) break
        if (m[1] === 'human') {
          if (human < 0) human = m.index
        } else if (human >= 0) {
          add('fake-system-marker', human, m.index + m[0].length)
          human = -1
        }
      }
    }
    for (const re of phrases) {
      const matcher = re.matcher(folded)
      while (!budget.exhausted && matcher.find()) {
        budget.charge(matcher.end() - matcher.start() + 16)
        if (matcher.end() > matcher.start()) add('phrase', matcher.start(), matcher.end())
      }
    }
    if (hidden && !off.has('hidden-text') && findings.length > 0)
      findings.push({ kind: 'hidden-text', start: 0, end: text.length, detail: 'hidden-text' })
    return findings.sort((a, b) => a.start - b.start)
  })
}

/** Most findings one string may yield; past it the scan stops with a `scan-limit` finding. */
const MAX_FINDINGS = 1000

/** Prompt-injection attempts in `text`. */
export function scanInjection(
  text: string,
  options: InjectionOptions = {},
  context?: ScanContext,
): Finding[] {
  return prepareInjection(options)(text, undefined, context)
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
