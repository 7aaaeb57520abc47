# Helpers shared by serve-bench.sh, update-bench.sh and scale-bench.sh (source it; bash).

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Waits up to 10 s for URL to answer with a 2xx; returns 1 if it never does.
wait_for() {
    for _ in $(seq 1 100); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done
    return 1
}

# Total VmRSS of the given PIDs, in KiB.
rss_kib() {
    local sum=0 pid value
    for pid in "$@"; do
        value=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
        sum=$((sum + ${value:-0}))
    done
    echo "$sum"
}

# A wrk latency like 1.23ms, 456.00us or 1.02s, in milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'
}

# The median of space-separated numbers.
median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# A / B to two decimals, n/a when B is not a positive number.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && b + 0 > 0) printf "%.2f", a / b; else print "n/a" }'; }

# KiB → MiB, rounded.
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

# make_lua PREFIX PATHS LUA: a wrk script requesting PREFIX + each line of PATHS, round-robin.
make_lua() {
    # An empty list would make wrk's Lua fail at its first request ("concatenate a nil value").
    [[ -s "$2" ]] || { echo "make_lua: no paths in $2 for the mixed run" >&2; return 1; }
    {
        echo "local prefix = \"$1\""
        echo "local paths = {"
        sed 's/.*/  "&",/' "$2"
        echo "}"
        echo 'local counter = 0'
        echo 'request = function()'
        echo '  counter = counter % #paths + 1'
        echo '  return wrk.format("GET", prefix .. paths[counter])'
        echo 'end'
    } > "$3"
}

# write_nginx_conf CONF WORK PORT ROOT: an nginx configuration serving ROOT on 127.0.0.1:PORT the
# way the benches compare it (sendfile, keep-alive, access log off), its pid, log and temp files in WORK.
write_nginx_conf() {
    mkdir -p "$2/nginx-temp"
    cat > "$1" <<CONF
worker_processes auto;
pid $2/nginx.pid;
error_log $2/nginx-error.log;
daemon off;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path $2/nginx-temp;
    proxy_temp_path $2/nginx-temp;
    fastcgi_temp_path $2/nginx-temp;
    uwsgi_temp_path $2/nginx-temp;
    scgi_temp_path $2/nginx-temp;
    server { listen 127.0.0.1:$3; root $4; }
}
CONF
}
