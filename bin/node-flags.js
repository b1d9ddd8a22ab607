// V8 flags for long-running processes (server, worker), applied by bin/svc.js and by bench/.
// A smaller young generation keeps RSS near the live heap under load at a small cost in
// scavenges (docs/decisions.md, Performance). Under load V8 let the old generation grow to ~4x
// its live size before a full collection. A factor of 2.5 keeps RSS under 300 MB after the
// bench's load; 2 saved more memory but its frequent full collections tripled checkout
// completion's p99 at 200/s (docs/performance.md, "Heap growth").
export const serverNodeFlags = ['--max-semi-space-size=8', '--heap-growing-percent=150'];
// glibc's default of 8 malloc arenas per core only fragments memory for a mostly single-threaded
// process; two keep RSS near what is in use.
export const serverEnv = { MALLOC_ARENA_MAX: '2' };
