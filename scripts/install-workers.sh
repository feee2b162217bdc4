#!/usr/bin/env bash
# Prepares swarm workers: this tree to the same path on every host (GNU parallel), make deps all.
set -euo pipefail
usage() {
  cat <<USAGE
usage: scripts/install-workers.sh HOSTS [CONFIG]
  HOSTS   GNU parallel sshloginfile, one [N/]sshlogin per line (see scripts/hosts.example);
          ':' lines (this machine) are skipped. ssh must log in without a password, as root
          (a VT needs loop devices, mounts and FUSE). PARALLEL_SSH="ssh -F cfg" is honoured.
  CONFIG  optional: a Metis config whose tools 'metis swarm --check' then looks for.
env: METIS_DEST   where the tree goes on the workers (default: this tree's path, so that
                  every worker has bin/metis where this machine has it)
     MAKE_TARGETS what is built there (default: "deps all")
USAGE
}
[ $# -ge 1 ] && [ $# -le 2 ] && [ "$1" != -h ] && [ "$1" != --help ] || { usage >&2; exit 2; }
hosts=$1 config=${2:-}
[ -r "$hosts" ] || { echo "install-workers: $hosts: cannot read the hosts file" >&2; exit 2; }
command -v parallel >/dev/null || { echo "install-workers: GNU parallel is not installed (apt-get install parallel)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${METIS_DEST:-$root}
targets=${MAKE_TARGETS:-deps all}
work=$(mktemp -d /tmp/metis-install.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Remote hosts only: ':' is this machine, which has the tree already.
grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$hosts" | grep -v -E '^([0-9]+/)?:[[:space:]]*$' \
  > "$work/hosts" || true
if [ ! -s "$work/hosts" ]; then
  echo "install-workers: no remote hosts in $hosts"
  exit 0
fi

# The tracked and untracked (not ignored) sources, without build products.
tarball=$work/metis-src.tar.gz
if git -C "$root" rev-parse >/dev/null 2>&1; then
  git -C "$root" ls-files -co --exclude-standard -z | tar -C "$root" -czf "$tarball" --null -T -
else
  tar -C "$root" -czf "$tarball" --exclude=./build --exclude=./bin --exclude=./lib --exclude=./runs .
fi

qdest=$(printf '%q' "$dest") qtar=$(printf '%q' "$tarball") qtargets=$(printf '%q' "$targets")
echo "install-workers: $(wc -l < "$work/hosts") hosts, tree to $dest, make $targets"
# 1. rsync (for the transfer) and make, where they are missing (Debian).
parallel --nonall --tag --sshloginfile "$work/hosts" \
  'command -v rsync >/dev/null && command -v make >/dev/null ||
   { DEBIAN_FRONTEND=noninteractive apt-get update -qq && apt-get install -y -qq rsync make >/dev/null; }'
# 2. the tree goes over the same SSH (parallel --basefile = rsync) and is built in place.
parallel --nonall --tag --sshloginfile "$work/hosts" --basefile "$tarball" --joblog "$work/joblog" \
  "mkdir -p $qdest && tar -xzf $qtar -C $qdest && rm -f $qtar && cd $qdest &&
   { make $targets > .install-workers.log 2>&1 && echo \"installed in $qdest\"; } ||
   { tail -n 15 .install-workers.log; echo \"make $targets FAILED in $qdest (log: $qdest/.install-workers.log)\"; exit 1; }" ||
  failed=1
# 3. what a swarm will find there.
if [ -x "$dest/bin/metis" ] && [ "$dest" = "$root" ]; then
  "$root/bin/metis" swarm ${config:+"$config"} --check --hosts "$hosts" || failed=1
fi
exit ${failed:-0}
