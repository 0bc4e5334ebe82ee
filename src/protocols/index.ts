// Wire formats mapped onto Warden's events: AOS JSON-RPC (re-exported here) and ACS v0.1
// (signed envelopes and a hash-chained session record, in acs/; imported through
// acs/index.js, since several of its names are AOS's too).

export { createAcsGuardianHooks } from './acs/index.js'
export * from './aos/index.js'
