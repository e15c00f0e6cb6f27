# Sourced by .ci/run (bash, as root): installs PostgreSQL and libpq-dev when missing, starts a throwaway cluster
# as user postgres in a temporary folder on a free loopback port, and exports its URI as
# OBJECTGRAPH_TEST_POSTGRES for the PostgreSQL store tests; and a second cluster for the server restart test
# (OBJECTGRAPH_TEST_POSTGRES_RESTART_URI, with OBJECTGRAPH_TEST_POSTGRES_RESTART the command that restarts it).
# The clusters and their folder are removed on exit.
# Fails the run when the server cannot be started.
set -euo pipefail
pg_missing=()
for p in postgresql libpq-dev; do dpkg -s "$p" >/dev/null 2>&1 || pg_missing+=("$p"); done
if [ ${#pg_missing[@]} -gt 0 ]; then
    echo "Installing: ${pg_missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${pg_missing[@]}" >/dev/null
fi

PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
PGTMP=$(mktemp -d /tmp/pgci.XXXXXX)          # not inside the checkout: user postgres must reach it
chown postgres:postgres "$PGTMP"
aspg() { runuser -u postgres -- "$@"; }       # initdb, pg_ctl and postgres refuse to run as root
pg_cleanup() {
    for data in "$PGTMP"/*/data; do
        [ -d "$data" ] && aspg "$PGBIN/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
    done
    rm -rf "$PGTMP"
}
trap pg_cleanup EXIT
trap 'exit 130' INT TERM                       # signals run the EXIT trap too

# pg_cluster NAME: starts a cluster in $PGTMP/NAME on the first free loopback port, with role objectgraph (may
# create databases) and database objectgraph_test; sets PGPORT and PG_RESTART (a command restarting it).
pg_cluster() {
    local dir="$PGTMP/$1" p
    mkdir -p "$dir" && chown postgres:postgres "$dir"
    PGPORT=
    # Below the kernel's ephemeral range: a port there that nobody listens on may still be a client connection's
    # own port, which the server then cannot bind ("could not start server", seen once in CI).
    local top
    top=$(( $(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768) - 1 ))
    for p in $(shuf -i 20000-"$top" -n 50); do     # the first loopback port nobody answers on
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { PGPORT=$p; break; }
    done
    : "${PGPORT:?no free port found for PostgreSQL}"
    aspg "$PGBIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
    aspg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o \
        "-c listen_addresses=127.0.0.1 -p $PGPORT -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_prepared_transactions=4" \
        start >/dev/null
    for _ in $(seq 100); do "$PGBIN/pg_isready" -q -h "$dir" -p "$PGPORT" && break; sleep 0.1; done
    "$PGBIN/pg_isready" -h 127.0.0.1 -p "$PGPORT"  # prints "...: accepting connections" or fails the run
    "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$PGPORT" -U postgres -d postgres \
        -c "CREATE ROLE objectgraph LOGIN PASSWORD 'objectgraph' CREATEDB" \
        -c "CREATE DATABASE objectgraph_test OWNER objectgraph"
    # (max_prepared_transactions: the restart test holds a lock across a restart in a prepared transaction.
    # pg_ctl restart starts the server again with the options it was started with.)
    PG_RESTART="runuser -u postgres -- $PGBIN/pg_ctl -D $dir/data -l $dir/server.log -w -t 60 -m fast restart"
}

pg_cluster main
export OBJECTGRAPH_TEST_POSTGRES="postgresql://objectgraph:objectgraph@127.0.0.1:$PGPORT/objectgraph_test"
# A second cluster for the server restart test, so that restarting it drops no other test's connections.
pg_cluster restart
export OBJECTGRAPH_TEST_POSTGRES_RESTART_URI="postgresql://objectgraph:objectgraph@127.0.0.1:$PGPORT/objectgraph_test"
export OBJECTGRAPH_TEST_POSTGRES_RESTART="$PG_RESTART"
