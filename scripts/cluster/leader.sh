#!/bin/bash
# Prints the number of the node whose Patroni answers /primary (nothing when none does).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
for i in 1 2 3; do curl -fs -m 0.5 -o /dev/null http://127.0.0.1:$(rest_port $i)/primary && echo $i && exit 0; done
exit 1
