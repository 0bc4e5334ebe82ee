// Wire formats mapped onto Warden's events: AOS JSON-RPC.

export * from './aos/index.js'
