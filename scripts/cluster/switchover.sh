#!/bin/bash
# A planned switchover away from the current leader (Patroni picks the synchronous standby).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
leader=$("$here/leader.sh") || { echo "no leader" >&2; exit 1; }
timeout 60 patronictl -c $TOPO/n1.yml switchover --leader n$leader --force
