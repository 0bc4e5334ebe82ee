// The agent side of ACS: a client that says hello and signs requests, a remote Guardian over
// HTTP, and the `guardian` hook that asks one with `protocol: acs`.

export type { ClientKey, HelloOptions, RequestOptions } from './client.js'
export { acsRequest, clientHello, responseSigned, responseVerifies } from './client.js'
export { createAcsGuardianHooks } from './guardian-hook.js'
export type { AcsAnswer, AcsPost, RemoteAcsGuardian } from './remote.js'
export { acsStepFor, createAcsRemote } from './remote.js'
