# Sourced by the mutation jobs: mutant_config TEMPLATE DEST NAME writes TEMPLATE plus a copy of its [fs reffs] section (size and reffs_opts) with mutation=NAME, as [fs mut].
mutant_config() {
  local tmpl=$1 dst=$2 mut=$3
  awk -v mut="$mut" '
    { print }
    /^\[/ { insec = ($0 == "[fs reffs]") ; next }
    insec && /^size *=/ { size = $0 }
    insec && /^reffs_opts *=/ { sub(/^reffs_opts *= */, ""); opts = $0 }
    END {
      print ""; print "[fs mut]"; print "type = reffs"
      if (size != "") print size
      print "reffs_opts = " (opts != "" ? opts "," : "") "mutation=" mut
    }' "$tmpl" >"$dst"
}
