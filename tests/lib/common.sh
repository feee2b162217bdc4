# Shared helpers of the integration tests: temp dirs, leak checks, assertions.
set -u
METIS_BIN=${METIS_BIN:-$PWD/bin}
METIS_ROOT=${METIS_ROOT:-$PWD}
cd "$METIS_ROOT"
T=$(mktemp -d /tmp/metis-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# Nothing of the run whose id is $1 may remain: mounts, loop devices, /dev/shm files.
assert_no_leftovers() {
  local id=$1
  if findmnt -rn -o TARGET | grep -q -- "metis-$id"; then fail "mount of run $id left behind"; fi
  if losetup -a | grep -q -- "metis-$id"; then fail "loop device of run $id left behind"; fi
  if ls /dev/shm | grep -q -- "metis-$id"; then fail "/dev/shm file of run $id left behind"; fi
  return 0
}

# The run id a run printed ("metis: run ID, output in DIR").
run_id_of() { sed -n 's/^metis: run \([^,]*\),.*/\1/p' "$1" | head -n1; }

json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
