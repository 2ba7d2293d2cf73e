// Package typescript is jobgen's TypeScript backend: from a resolved spec it
// generates a module of a TypeScript package whose decoders refuse what the
// Go decoders refuse and whose encoders write what Go writes (decisions
// 0038, 0072), as TypeScript source, JavaScript and declarations written
// from one text (decision 0096). As a gen.Packager it also writes what the
// modules of one output share: package.json and the runtime module
// (runtime.ts, with its JavaScript and declarations compiled by the pinned
// tsc), whose one DecodeError class every module throws; a package other
// than jobgen's imports jobgen's runtime instead and declares it a peer
// (decision 0143). Check reports what TypeScript cannot hold: reserved
// words, globals, names the module would declare twice, a package named
// like one of the package's own modules.
package typescript
