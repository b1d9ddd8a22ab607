#!/bin/bash
# node.sh start|stop|kill-patroni|kill-postgres <i>: one Patroni node of the local cluster.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
i=$2; pidf=$TOPO/run/patroni-n$i.pid
case $1 in
  start)  # setpriv execs patroni itself (no forking wrapper), so $! is Patroni's PID
    HOME=/var/lib/postgresql setpriv --reuid=postgres --regid=postgres --init-groups \
      patroni $TOPO/n$i.yml >>$TOPO/log/n$i.log 2>&1 &
    echo $! >$pidf ;;
  stop) kill -TERM "$(cat $pidf)" ;;                      # Patroni stops its PostgreSQL, then exits
  kill-patroni)  kill -9 "$(cat $pidf)" ;;
  kill-postgres) kill -9 "$(head -1 $TOPO/data/n$i/postmaster.pid)" ;;
  *) echo "usage: node.sh start|stop|kill-patroni|kill-postgres <1-3>" >&2; exit 2 ;;
esac
