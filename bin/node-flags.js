// V8 flags for long-running processes (server, worker), applied by bin/svc.js and by bench/.
// A smaller young generation keeps RSS near the live heap under load at a small cost in
// scavenges (docs/decisions.md, Performance).
export const serverNodeFlags = ['--max-semi-space-size=8'];
