// V8 flags for long-running processes (server, worker), applied by bin/svc.js and by bench/.
// A smaller young generation keeps RSS near the live heap under load at a small cost in
// scavenges (docs/decisions.md, Performance). Under load V8 let the old generation grow to ~4x
// its live size before a full collection; a factor of 2 cut RSS after the bench's load from
// ~300 MB to ~200 MB at no measurable CPU per request (docs/performance.md).
export const serverNodeFlags = ['--max-semi-space-size=8', '--heap-growing-percent=100'];
// glibc's default of 8 malloc arenas per core only fragments memory for a mostly single-threaded
// process; two keep RSS near what is in use.
export const serverEnv = { MALLOC_ARENA_MAX: '2' };
