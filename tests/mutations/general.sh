#!/usr/bin/env bash
# The general column of `make mutations`: one mutation against configs/general.ini alone (no directed config), all seeds on it.
# usage: general.sh NAME   (env: MUT_OUT, MUT_OPS, MUT_SEEDS as for one.sh; MUT_GENERAL_CFG another config)
# Result: "general" followed by one.sh's tab-separated result line.
. "$(dirname "$0")/../lib/common.sh"
root=$METIS_ROOT here=$root/tests/mutations
line=$(MUT_RANDOM=${MUT_GENERAL_CFG:-$root/configs/general.ini} MUT_DSEEDS=0 \
       MUT_OUT=${MUT_OUT:-$root/build/mutations}/general "$here/one.sh" "$1" -)
printf 'general\t%s\n' "$line"
