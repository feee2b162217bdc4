#!/bin/sh
# Starts bin/reffs-mutant when the RefFS options name a mutation, else bin/reffs (METIS_REFFS_BIN for mutation runs).
dir=${METIS_BIN:-$(dirname "$0")/../../bin}
case " $* " in
  *mutation=*) exec "$dir/reffs-mutant" "$@" ;;
  *) exec "$dir/reffs" "$@" ;;
esac
