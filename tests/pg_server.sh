# Sourced by the database tests and benchmark: a PostgreSQL server of their own in a temporary
# directory (Debian's postgresql package: initdb, then the server on a Unix socket in that
# directory, no TCP port), stopped by pg_stop. As root (CI), the server runs as the package's
# postgres user: PostgreSQL refuses to run as root.
#   pg_start DIR   starts it; sets PG_URL (postgresql:///postgres?host=DIR&user=mmprof), or
#                  returns 1 with PG_WHY saying why not
#   pg_stop        stops the server in PG_DIR (set it before a subshell calls pg_start)
pg_bin() {
    local d
    d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && echo "$d"
}

pg_as() { # runs a server command as the server's user
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_start() {
    PG_DIR=$1 PG_WHY=""
    PG_BIN=$(pg_bin) || { PG_WHY="no PostgreSQL server here (Debian: apt install postgresql; make test-deps does)"; return 1; }
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        PG_WHY="running as root and no postgres user to run the server as"; return 1
    fi
    mkdir -p "$PG_DIR"
    [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
    pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U mmprof -E UTF8 --locale=C --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
        { PG_WHY="initdb failed: $(tail -3 "$PG_DIR/initdb.log")"; return 1; }
    # No TCP at all (listen_addresses empty), fsync off: a test's server, gone at the end.
    pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 30 \
        -o "-k $PG_DIR -c listen_addresses= -c fsync=off -c full_page_writes=off" start >/dev/null 2>&1 ||
        { PG_WHY="the server did not start: $(tail -3 "$PG_DIR/server.log")"; return 1; }
    PG_URL="postgresql:///postgres?host=$PG_DIR&user=mmprof"
}

pg_stop() {
    # PG_BIN found again where pg_start ran in a subshell (a test run by run_test): the caller's
    # exit trap must still stop that server, or it outlives the test with its directory removed.
    local bin=${PG_BIN:-$(pg_bin)}
    [ -n "$bin" ] && [ -d "${PG_DIR:-}/data" ] && pg_as "$bin/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1
    return 0
}
