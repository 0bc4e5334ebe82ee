// The gateways' shared kit: what `warden llm`, `warden mcp` and `warden a2a` have in common,
// built once. Each protocol folder keeps only its protocol's mapping.

export {
  classifyItem,
  firstRefusal,
  type ItemRule,
  type ItemTable,
  type ItemVerdict,
  itemKey,
  REFUSE_UNKNOWN,
  tableEntries,
  type UnknownTypePolicy,
  unknownTypePolicy,
} from './closed-world.js'
export { LET_THROUGH_CODE, letThroughRecorder, listedKeys } from './let-through.js'
