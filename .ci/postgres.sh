# Sourced by .ci/run (bash, as root): installs PostgreSQL and libpq-dev when missing, starts a throwaway cluster
# as user postgres in a temporary folder on a free loopback port, and exports its URI as
# OBJECTGRAPH_TEST_POSTGRES for the PostgreSQL store tests. The cluster and folder are removed on exit.
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
    aspg "$PGBIN/pg_ctl" -D "$PGTMP/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$PGTMP"
}
trap pg_cleanup EXIT
trap 'exit 130' INT TERM                       # signals run the EXIT trap too

PGPORT=
for p in $(shuf -i 20000-60000 -n 50); do     # the first loopback port nobody answers on
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { PGPORT=$p; break; }
done
: "${PGPORT:?no free port found for PostgreSQL}"

aspg "$PGBIN/initdb" -D "$PGTMP/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
aspg "$PGBIN/pg_ctl" -D "$PGTMP/data" -l "$PGTMP/server.log" -w -t 60 -o \
    "-c listen_addresses=127.0.0.1 -p $PGPORT -k $PGTMP -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null
for _ in $(seq 100); do "$PGBIN/pg_isready" -q -h "$PGTMP" -p "$PGPORT" && break; sleep 0.1; done
"$PGBIN/pg_isready" -h 127.0.0.1 -p "$PGPORT"  # prints "...: accepting connections" or fails the run

"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGTMP" -p "$PGPORT" -U postgres -d postgres \
    -c "CREATE ROLE objectgraph LOGIN PASSWORD 'objectgraph' CREATEDB" \
    -c "CREATE DATABASE objectgraph_test OWNER objectgraph"
export OBJECTGRAPH_TEST_POSTGRES="postgresql://objectgraph:objectgraph@127.0.0.1:$PGPORT/objectgraph_test"
