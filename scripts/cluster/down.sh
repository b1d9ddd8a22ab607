#!/bin/bash
# Stops everything by PID (each waited for), then removes the data.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
stop() { kill -TERM "$1" 2>/dev/null || return 0; for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.2; done; echo "pid $1 still running" >&2; }
[ -f $TOPO/run/haproxy.pid ] && stop "$(cat $TOPO/run/haproxy.pid)"
for i in 1 2 3; do [ -f $TOPO/run/patroni-n$i.pid ] && stop "$(cat $TOPO/run/patroni-n$i.pid)"; done
for i in 1 2 3; do
  f=$TOPO/data/n$i/postmaster.pid
  [ -f $f ] && kill -0 "$(head -1 $f)" 2>/dev/null && \
    setpriv --reuid=postgres --regid=postgres --init-groups $PGBIN/pg_ctl -D $TOPO/data/n$i stop -m fast
done
[ -f $TOPO/run/etcd.pid ] && stop "$(cat $TOPO/run/etcd.pid)"
rm -rf $TOPO/data $TOPO/etcd $TOPO/run
