// Package typescript is jobgen's TypeScript backend: from a resolved spec
// it generates one self-contained ES module whose decoders refuse what the
// Go decoders refuse and whose encoders write what Go writes (decisions
// 0038, 0072), with the codec runtime (tsruntime.ts) inlined. Check reports
// what TypeScript cannot hold: reserved words, globals, names the module
// would declare twice.
package typescript
