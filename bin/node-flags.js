// V8 flags for long-running processes (server, worker), applied by bin/svc.js and by bench/.
// A smaller young generation keeps RSS near the live heap under load at a small cost in
// scavenges (docs/decisions.md, Performance).
export const serverNodeFlags = ['--max-semi-space-size=8'];
// glibc's default of 8 malloc arenas per core only fragments memory for a mostly single-threaded
// process; two keep RSS near what is in use.
export const serverEnv = { MALLOC_ARENA_MAX: '2' };
