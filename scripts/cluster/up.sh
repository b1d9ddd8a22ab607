#!/bin/bash
# etcd, n1 until it is the primary, n2 and n3 until they are replicas, HAProxy; then the `svc`
# role and database through the writer. Every wait is bounded. Run as root (PostgreSQL runs as
# the OS user postgres through setpriv). Prints the URLs for svc at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
fail() { echo "cluster up: $*" >&2; exit 1; }
wait_for() { local what=$1 tries=$2; shift 2; for _ in $(seq "$tries"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done; fail "$what did not come up (logs in $TOPO/log)"; }
mkdir -p $TOPO/data $TOPO/run $TOPO/log $TOPO/etcd
chmod 755 $TOPO  # Patroni (user postgres) reads its configuration there
chown postgres:postgres $TOPO/data $TOPO/run && chmod 700 $TOPO/data
etcd --name e1 --data-dir $TOPO/etcd \
  --listen-client-urls http://$ETCD_CLIENT --advertise-client-urls http://$ETCD_CLIENT \
  --listen-peer-urls http://$ETCD_PEER --initial-advertise-peer-urls http://$ETCD_PEER \
  --initial-cluster e1=http://$ETCD_PEER --initial-cluster-token svc-cluster >>$TOPO/log/etcd.log 2>&1 &
echo $! >$TOPO/run/etcd.pid
wait_for etcd 60 etcdctl --endpoints=$ETCD_CLIENT endpoint health
for i in 1 2 3; do
  sed -e "s/@I@/$i/g" -e "s/@REST@/$(rest_port $i)/g" -e "s/@PG@/$(pg_port $i)/g" -e "s#@TOPO@#$TOPO#g" \
    -e "s#@PGBIN@#$PGBIN#g" -e "s/@ETCD@/$ETCD_CLIENT/g" -e "s/@SUPER@/$PGPASSWORD_SUPER/g" \
    "$here/patroni.yml.tmpl" >$TOPO/n$i.yml
done
sed -e "s/@STATS@/$HAPROXY_STATS/g" -e "s/@WRITER@/$WRITER_PORT/g" -e "s/@READER@/$READER_PORT/g" \
  -e "s/@PG1@/$(pg_port 1)/g" -e "s/@PG2@/$(pg_port 2)/g" -e "s/@PG3@/$(pg_port 3)/g" \
  -e "s/@REST1@/$(rest_port 1)/g" -e "s/@REST2@/$(rest_port 2)/g" -e "s/@REST3@/$(rest_port 3)/g" \
  "$here/haproxy.cfg.tmpl" >$TOPO/haproxy.cfg
"$here/node.sh" start 1
wait_for "n1 (primary)" 240 curl -fs http://127.0.0.1:$(rest_port 1)/primary
"$here/node.sh" start 2; "$here/node.sh" start 3
for i in 2 3; do wait_for "n$i (replica)" 480 curl -fs http://127.0.0.1:$(rest_port $i)/replica; done
haproxy -f $TOPO/haproxy.cfg -D -p $TOPO/run/haproxy.pid
# HAProxy's checks (every 1 s, rise 2) must mark the primary UP before the writer port serves.
primary_up() { [ -n "$(haproxy_up primary)" ]; }
wait_for "a primary UP in HAProxy" 60 primary_up
export PGPASSWORD=$PGPASSWORD_SUPER
wait_for "the writer port" 60 psql -h 127.0.0.1 -p $WRITER_PORT -U postgres -AtX -c 'SELECT 1'
# Right after its bootstrap the new primary may still answer read-only for a moment (seen while
# Patroni assigns the first synchronous standby): create what is missing until both exist.
writer() { psql -h 127.0.0.1 -p $WRITER_PORT -U postgres -AtX -q "$@"; }
svc_database() {
  [ "$(writer -c "SELECT 1 FROM pg_roles WHERE rolname = 'svc'")" = 1 ] ||
    writer -c "CREATE ROLE svc LOGIN PASSWORD 'svc' BYPASSRLS CREATEROLE" || return 1
  [ "$(writer -c "SELECT 1 FROM pg_database WHERE datname = 'svc'")" = 1 ] || writer -c "CREATE DATABASE svc OWNER svc"
}
wait_for "the svc role and database on a writable primary" 120 svc_database
echo "DATABASE_URL=postgresql://svc:svc@127.0.0.1:$WRITER_PORT/svc"
echo "SVC_READ_DATABASE_URL=postgresql://svc_app_login:\$SVC_APP_PASSWORD@127.0.0.1:$READER_PORT/svc"
