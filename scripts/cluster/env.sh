# Shared settings for a local Patroni cluster (source it). Ports: a two-digit prefix P
# (CLUSTER_PORT_PREFIX, default 27) gives etcd P379/P380, PostgreSQL P432-P434, Patroni REST
# P001-P003, HAProxy writer P440, readers P441, stats P480: below Linux's ephemeral range
# (32768-60999), so an outgoing connection's local port never takes one of them.
export TOPO=${TOPO:-/tmp/svc-cluster}
export P=${CLUSTER_PORT_PREFIX:-27}
export PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
export ETCD_CLIENT=127.0.0.1:${P}379 ETCD_PEER=127.0.0.1:${P}380
export WRITER_PORT=${P}440 READER_PORT=${P}441 HAPROXY_STATS=${P}480
export PGPASSWORD_SUPER=${PGPASSWORD_SUPER:-topo-super}
# node i (1-3): PostgreSQL on P43{1+i}, Patroni REST on P00{i}
pg_port()   { echo "${P}43$((1 + $1))"; }
rest_port() { echo "${P}00$1"; }
# names of the servers HAProxy reports UP in a backend (primary or replicas), space-separated
haproxy_up() { curl -s -m 1 "http://127.0.0.1:$HAPROXY_STATS/;csv" | awk -F, -v b="$1" '$1==b && $2!="BACKEND" && $2!="FRONTEND" && $18=="UP" {printf "%s ", $2}'; }
