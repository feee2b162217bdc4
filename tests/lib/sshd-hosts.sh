# SSH test hosts for swarm tests (sourced): private sshd instances on loopback addresses.
# Usage: swarm_hosts_start DIR N   -> N sshd on 127.0.0.2 .. 127.0.0.(N+1), each on its own port;
#        writes DIR/ssh_config (Host h1 .. hN), DIR/key, exports PARALLEL_SSH="ssh -F DIR/ssh_config".
#        swarm_hosts_stop DIR        -> kills exactly the sshd instances started for DIR.
#        swarm_hosts_dead_alias DIR NAME -> adds Host NAME pointing at a port nothing listens on.

_swarm_free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 40000))
    ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
  done
  return 1
}

_swarm_sshd_config() {  # DIR I ADDR PORT
  cat <<CFG
Port $4
ListenAddress $3
HostKey $1/host$2_key
PidFile $1/sshd$2.pid
AuthorizedKeysFile $1/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 100:30:200
MaxSessions 100
LogLevel ERROR
Subsystem sftp internal-sftp
CFG
}

_swarm_wait_port() {  # ADDR PORT PID: until sshd PID listens there (or has exited)
  local addr=$1 port=$2 pid=$3
  wait_for 60 eval '! kill -0 $pid 2>/dev/null || ss -Htln "sport = :$port" 2>/dev/null | grep -q "$addr"'
  ss -Htln "sport = :$port" 2>/dev/null | grep -q "$addr"
}

swarm_hosts_start() {
  local dir=$1 n=$2 i addr port
  mkdir -p "$dir"
  # sshd insists on its privilege separation directory (Debian's service creates it at boot).
  [ -d /run/sshd ] || mkdir -m 0755 -p /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$dir/key" || return 1
  cp "$dir/key.pub" "$dir/authorized_keys"
  : > "$dir/ssh_config"
  for i in $(seq "$n"); do
    addr=127.0.0.$((i + 1))
    ssh-keygen -q -t ed25519 -N '' -f "$dir/host${i}_key" || return 1
    port=$(_swarm_free_port) || return 1
    _swarm_sshd_config "$dir" "$i" "$addr" "$port" > "$dir/sshd$i.conf"
    /usr/sbin/sshd -D -f "$dir/sshd$i.conf" -E "$dir/sshd$i.log" &
    echo $! > "$dir/sshd$i.pid.bg"
    printf 'Host h%s\n  HostName %s\n  Port %s\n  User root\n' "$i" "$addr" "$port" >> "$dir/ssh_config"
    _swarm_wait_port "$addr" "$port" "$(cat "$dir/sshd$i.pid.bg")" || { echo "sshd $i did not start: $(cat "$dir/sshd$i.log")" >&2; return 1; }
  done
  cat >> "$dir/ssh_config" <<CFG
Host *
  IdentityFile $dir/key
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  BatchMode yes
  ConnectTimeout 5
  LogLevel ERROR
  ControlMaster no
CFG
  export PARALLEL_SSH="ssh -F $dir/ssh_config"
}

swarm_hosts_dead_alias() {  # DIR NAME: a host whose port has no listener (connection refused)
  local port
  port=$(_swarm_free_port) || return 1
  local tmp
  tmp=$(mktemp "$1/ssh_config.XXXX")
  printf 'Host %s\n  HostName 127.0.0.9\n  Port %s\n  User root\n' "$2" "$port" > "$tmp"
  cat "$1/ssh_config" >> "$tmp" && mv "$tmp" "$1/ssh_config"
}

swarm_hosts_stop() {
  local dir=$1 f
  for f in "$dir"/sshd*.pid.bg; do
    [ -f "$f" ] || continue
    kill "$(cat "$f")" 2>/dev/null
    wait "$(cat "$f")" 2>/dev/null
    rm -f "$f"
  done
}
